/**
 * Where the app finds its agents: a record of compiled agents (bundled at build time, or loaded
 * from a directory at start-up), or any source that can list and fetch them lazily.
 */
import type { CompiledAgent } from '../src/graph/compiled-agent.js';

export interface AgentSummary {
  name: string;
  description: string;
}

export interface AgentSource {
  list(): AgentSummary[] | Promise<AgentSummary[]>;
  /** The compiled agent, or undefined when there is none by that name. */
  get(name: string): CompiledAgent | undefined | Promise<CompiledAgent | undefined>;
}

/** Accepts either form; a record is keyed by agent name. */
export function toAgentSource(agents: Record<string, CompiledAgent> | AgentSource): AgentSource {
  if (isAgentSource(agents)) return agents;
  const byName = new Map(Object.entries(agents));
  return {
    list: () => [...byName.entries()].map(([name, agent]) => ({ name, description: agent.description ?? '' })).sort((left, right) => left.name.localeCompare(right.name)),
    get: (name) => byName.get(name),
  };
}

function isAgentSource(value: unknown): value is AgentSource {
  return typeof (value as AgentSource).list === 'function' && typeof (value as AgentSource).get === 'function';
}
