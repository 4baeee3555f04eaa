/** Helpers for the Lua tests: run a chunk once, or capture the AgentError it throws. */
import { AgentError } from '../core/agent-error.js';
import { compileLua } from './compile-lua.js';
import type { LuaRunOptions, LuaSourceLocation } from './compile-lua.js';

/** Compiles and runs `code` once. */
export function runLua(
  code: string,
  globals: Record<string, unknown> = {},
  options: LuaRunOptions = {},
  where: LuaSourceLocation = { node: 'test' },
): unknown {
  return compileLua(code, where).run(globals, options);
}

/** Runs `action` and returns the AgentError it throws; fails the test if it returns or throws something else. */
export function captureError(action: () => unknown): AgentError {
  try {
    action();
  } catch (error) {
    if (AgentError.isInstance(error)) return error;
    throw new Error(`expected an AgentError, got ${String(error)}`);
  }
  throw new Error('expected an AgentError, but the call returned');
}

/** The error of running `code` once. */
export function luaError(code: string, globals: Record<string, unknown> = {}, options: LuaRunOptions = {}): AgentError {
  return captureError(() => runLua(code, globals, options));
}
