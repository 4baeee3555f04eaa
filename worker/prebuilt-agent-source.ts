/**
 * The agents bundled into a worker at build time (`virtual:tea-agents`): specs parsed and checked
 * by the build, compiled here with the engine's compileAgent, so the worker carries no YAML
 * parser. The build already compiled each one, so a failure here would mean the bundle and the
 * engine disagree: it surfaces as INVALID_AGENT on requests instead of crashing the isolate.
 */
import { toAgentError, type AgentError } from '../src/core/agent-error.js';
import { combineLoadErrors } from './agent-load-errors.js';
import type { ScriptSandboxes } from '../src/core/script-sandbox.js';
import { createActionRegistry } from '../src/builtins.js';
import { compileAgent } from '../src/graph/compile-agent.js';
import type { CompiledAgent } from '../src/graph/compiled-agent.js';
import type { AgentSpec } from '../src/spec/agent-spec.js';
import type { SourcePosition } from '../src/spec/parse-yaml.js';
import type { AgentSource } from './agent-source.js';

/** One agent as the build emits it. */
export interface PrebuiltAgent {
  file: string;
  spec: Omit<AgentSpec, 'positionOf' | 'contentLineOf'>;
  /** Source positions by JSON path, as the build's compilation looked them up. */
  positions: Record<string, SourcePosition | null>;
  lines: Record<string, number | null>;
}

/** Gives a prebuilt spec back its position lookups. */
function revive(prebuilt: PrebuiltAgent): AgentSpec {
  return {
    ...prebuilt.spec,
    positionOf: (path) => prebuilt.positions[JSON.stringify(path)] ?? undefined,
    contentLineOf: (path) => prebuilt.lines[JSON.stringify(path)] ?? undefined,
  };
}

/**
 * An AgentSource over prebuilt agents, compiled on first use (per source object, not per module)
 * with the script sandboxes the host entry passes (Lua for the Cloudflare and Deno entries).
 */
export function prebuiltAgentSource(agents: ReadonlyArray<PrebuiltAgent>, scripts: ScriptSandboxes): AgentSource {
  // Every built-in action; the script sandboxes only of the languages the bundled agents use.
  return lazyAgentSource(() => agents.map((prebuilt) => ({ file: prebuilt.file, compile: () => compileAgent(revive(prebuilt), { scripts, registry: createActionRegistry() }) })));
}

/**
 * An AgentSource over agents compiled on first use; shared by the prebuilt and YAML forms. When
 * agents fail to load, every file is still compiled and the error thrown is the first one, with
 * `details.errors` listing the problems of every broken file (agent-load-errors.ts).
 */
export function lazyAgentSource(load: () => Array<{ file: string; compile: () => CompiledAgent }>): AgentSource {
  let compiled: Map<string, CompiledAgent> | undefined;
  const all = (): Map<string, CompiledAgent> => {
    if (compiled === undefined) {
      const byName = new Map<string, CompiledAgent>();
      const failures: AgentError[] = [];
      for (const { file, compile } of load()) {
        try {
          const agent = compile();
          byName.set(agent.name, agent);
        } catch (error) {
          failures.push(toAgentError(error, 'INVALID_AGENT', { file }));
        }
      }
      if (failures.length > 0) throw combineLoadErrors(failures);
      compiled = byName;
    }
    return compiled;
  };
  return {
    list: () => [...all().values()].map((agent) => ({ name: agent.name, description: agent.description ?? '' })).sort((left, right) => left.name.localeCompare(right.name)),
    get: (name) => all().get(name),
  };
}
