/**
 * The agents bundled into a worker at build time (`virtual:tea-agents`), compiled with the
 * engine's loadAgent. The build already compiled each one, so a failure here would mean the
 * bundle and the engine disagree: it is reported as INVALID_AGENT on every request rather than
 * crashing the isolate.
 */
import { AgentError } from '../src/errors/agent-error.js';
import type { CompiledAgent } from '../src/graph/compiled-agent.js';
import { loadAgent } from '../src/graph/run-agent.js';
import type { AgentSource } from './agent-source.js';

/** An AgentSource over agent files, compiled on first use (per source object, not per module). */
export function compiledAgentSource(files: ReadonlyArray<{ file: string; source: string }>): AgentSource {
  let compiled: Map<string, CompiledAgent> | undefined;
  const all = (): Map<string, CompiledAgent> => {
    if (compiled === undefined) {
      const byName = new Map<string, CompiledAgent>();
      for (const { file, source } of files) {
        try {
          const agent = loadAgent(source, { file });
          byName.set(agent.name, agent);
        } catch (error) {
          throw AgentError.isInstance(error) ? error : new AgentError('INVALID_AGENT', `${file}: ${String(error)}`);
        }
      }
      compiled = byName;
    }
    return compiled;
  };
  return {
    list: () => [...all().values()].map((agent) => ({ name: agent.name, description: agent.description ?? '' })).sort((left, right) => left.name.localeCompare(right.name)),
    get: (name) => all().get(name),
  };
}
