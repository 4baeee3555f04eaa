/**
 * Where the app finds its agents: a record of compiled agents (bundled at build time, or loaded
 * from a directory at start-up), or any source that can list and fetch them lazily.
 */
import type { CompiledAgent } from '../src/graph/compiled-agent.js';
import type { LoadProblem } from './agent-load-errors.js';

/**
 * One agent of `GET /agents`. A host that lists the files that do not load (`serve`) gives them
 * `status: 'invalid'`, their file and their problems; every other agent is `ready`.
 */
export type AgentSummary =
  | { name: string; description: string; status: 'ready' }
  | { name: string; description: string; status: 'invalid'; file: string; errors: LoadProblem[] };

export interface AgentSource {
  list(): AgentSummary[] | Promise<AgentSummary[]>;
  /**
   * The compiled agent, or undefined when there is none by that name; for an agent listed as
   * invalid, rejects with its load error (INVALID_AGENT, 422, naming the first problem).
   */
  get(name: string): CompiledAgent | undefined | Promise<CompiledAgent | undefined>;
  /** The agent file's text, when the host has it (the studio's source view). */
  source?(name: string): string | undefined;
}

/** Accepts either form; a record is keyed by agent name. */
export function toAgentSource(agents: Record<string, CompiledAgent> | AgentSource): AgentSource {
  if (isAgentSource(agents)) return agents;
  const byName = new Map(Object.entries(agents));
  return {
    list: () =>
      [...byName.entries()]
        .map(([name, agent]) => ({ name, description: agent.description ?? '', status: 'ready' as const }))
        .sort((left, right) => left.name.localeCompare(right.name)),
    get: (name) => byName.get(name),
  };
}

function isAgentSource(value: unknown): value is AgentSource {
  return typeof (value as AgentSource).list === 'function' && typeof (value as AgentSource).get === 'function';
}
