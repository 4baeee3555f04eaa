/**
 * `luaSandbox`: the Lua implementation of the ScriptSandbox seam (src/core/script-sandbox.ts),
 * which hosts hand the engine: `loadAgent(text, { scripts: { lua: luaSandbox } })`. Importing
 * this module brings in the fengari VM (about 62 KB gzipped); a host that leaves it out gets
 * SCRIPT_ENGINE_NOT_LOADED for agents with Lua. Stateless: each compiled chunk owns its VM.
 */
import type { ScriptSandbox, ScriptSandboxes } from '../core/script-sandbox.js';
import { luaBudgetFromSettings } from './budget-limits.js';
import { compileLua } from './compile-lua.js';

export const luaSandbox: ScriptSandbox = Object.freeze({
  language: 'lua',
  errorCodes: Object.freeze({ syntax: 'LUA_SYNTAX', runtime: 'LUA_ERROR', budget: 'LUA_BUDGET' }),
  compile: compileLua,
  budgetFromSettings: luaBudgetFromSettings,
});

/** Every script sandbox this package ships: what the Node, worker, Deno and CLI hosts pass. */
export const ALL_SCRIPT_SANDBOXES: ScriptSandboxes = Object.freeze({ lua: luaSandbox });
