/**
 * The main entry's `loadAgent` and `compileAgent`: the engine's (src/graph/) with every built-in
 * action (src/builtins.ts) and every script sandbox this package ships statically (Lua), unless
 * `options.registry` / `options.scripts` name others. `tea-edge/engine` exports the engine's own,
 * which take only what the host passes, so a host that must stay small imports those.
 */
import { createActionRegistry } from './builtins.js';
import { compileAgent as compileAgentWith, type CompileOptions } from './graph/compile-agent.js';
import type { CompiledAgent } from './graph/compiled-agent.js';
import { loadAgent as loadAgentWith, type LoadAgentOptions } from './graph/load-agent.js';
import { ALL_SCRIPT_SANDBOXES } from './lua/lua-script-sandbox.js';
import type { AgentSpec } from './spec/agent-spec.js';

/** `options` with the defaults filled in: every built-in action, Lua. */
function withDefaults<T extends CompileOptions>(options: T): T {
  return {
    ...options,
    registry: options.registry ?? createActionRegistry(),
    scripts: options.scripts ?? ALL_SCRIPT_SANDBOXES,
  };
}

/** Parses, checks and compiles an agent file, with every built-in action and Lua. Throws AgentError with file:line:column and `details.errors`. */
export function loadAgent(source: string, options: LoadAgentOptions = {}): CompiledAgent {
  return loadAgentWith(source, withDefaults(options));
}

/** Compiles a checked spec (readAgentSpec's), with every built-in action and Lua. */
export function compileAgent(spec: AgentSpec, options: CompileOptions = {}): CompiledAgent {
  return compileAgentWith(spec, withDefaults(options));
}
