/**
 * Stands in for src/lua/compile-lua.ts in the light engine worker (engine-worker.js), which the
 * page loads first: the Lua VM (fengari) is most of the engine's size and most agents do not
 * use it. The page sends agents with Lua to the full worker (engine-worker-lua.js); if one slips
 * through, compiling it fails with this marker and the page retries on the full worker.
 */
import { AgentError } from '../src/errors/agent-error.js';
import type { CompiledLua } from '../src/lua/types.js';
import { LUA_NOT_LOADED } from './lua-marker.js';

/** Always throws: this build of the engine has no Lua. */
export function compileLua(_code: string, where: { node?: string; field?: string; file?: string; line?: number } = {}): CompiledLua {
  throw new AgentError('UNSUPPORTED_LANGUAGE', `${LUA_NOT_LOADED}: the light engine has no Lua; the page reloads this agent in the Lua engine`, {
    ...(where.node !== undefined ? { node: where.node } : {}),
    ...(where.field !== undefined ? { field: where.field } : {}),
  });
}
