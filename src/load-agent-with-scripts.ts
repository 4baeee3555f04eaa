/**
 * The main entry's `loadAgent`: the engine's loadAgent (src/graph/load-agent.ts) with every
 * script sandbox this package ships (Lua) unless `options.scripts` names others. Hosts that must
 * stay small (the web demo's light engine) import the engine's loadAgent and pass their own.
 */
import type { CompiledAgent } from './graph/compiled-agent.js';
import { loadAgent as loadAgentWith, type LoadAgentOptions } from './graph/load-agent.js';
import { ALL_SCRIPT_SANDBOXES } from './lua/lua-script-sandbox.js';

/** Parses, checks and compiles an agent file, with Lua. Throws AgentError with file:line:column and `details.errors`. */
export function loadAgent(source: string, options: LoadAgentOptions = {}): CompiledAgent {
  return loadAgentWith(source, { ...options, scripts: options.scripts ?? ALL_SCRIPT_SANDBOXES });
}
