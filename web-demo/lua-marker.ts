/**
 * How the page tells which engine worker an agent needs: the light one (no Lua VM) or the full
 * one. The page guesses from the text first (`mayUseLua`); when a guess is wrong the light
 * engine's load error has the code below, and the page retries on the full engine.
 */
import type { ErrorCode } from '../src/core/agent-error.js';

/** The error code of an agent with inline code loaded by an engine without that sandbox. */
export const SCRIPT_ENGINE_NOT_LOADED: ErrorCode = 'SCRIPT_ENGINE_NOT_LOADED';

/** True when a load or run error says the agent needs a script sandbox the light engine lacks (by code, never by message). */
export function needsScriptEngine(error: { code: string } | undefined): boolean {
  return error?.code === SCRIPT_ENGINE_NOT_LOADED;
}

/** True when an agent file plainly contains Lua (a `run:` key, or the word lua). */
export function mayUseLua(agentYaml: string): boolean {
  return /^\s*(-\s+)?run\s*:/m.test(agentYaml) || /\blua\b/i.test(agentYaml);
}
