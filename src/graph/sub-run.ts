/**
 * Agent files as sub-runs (agent.dispatch / sequential / parallel with `agent: {file: …}`): the
 * rules around the child run, kept apart from the run session that executes it.
 *
 *   path   ← the reference resolved in the calling agent's folder (rooted: never leaves the root)
 *   refuse ← a file already in the chain of callers (a cycle), or a chain deeper than MAX_DEPTH
 *   agent  ← host's AgentFileSource.load(path) — validated like any agent, every problem reported
 *   state  ← the child's graph run on `input`, sharing the parent's budget and signal; its events
 *            go into the parent's trace with `sub_run` frames (src/core/events.ts)
 *
 * A sub-run cannot pause: an agent file with interrupt_before/after is refused before it runs,
 * and a tool confirmation asked inside one fails it. Its failure keeps the child's error code (a
 * budget stays BUDGET_EXCEEDED, an unreachable model LLM_UNAVAILABLE) and names both agents.
 */
import { AgentError, toAgentError } from '../core/agent-error.js';
import type { EventData, EventType, SubRunFrame } from '../core/events.js';
import { joinRooted, normalizeRootedPath, rootedDirname } from '../util/rooted-path.js';
import type { AgentFileSource } from './agent-files.js';
import type { CompiledAgent } from './compiled-agent.js';
import type { RunBudget } from './run-budget.js';

/** How deep sub-runs may nest (the top run is depth 0). */
export const MAX_SUB_RUN_DEPTH = 8;

/** What a child run shares with the run that started it. */
export interface SubRunLink {
  readonly budget: RunBudget;
  readonly signal: AbortSignal;
  /** The child's rooted file and the files of its callers, top run first. */
  readonly file: string;
  readonly chain: readonly string[];
  /** Puts one of the child's events into the parent's trace, `frames` from the child down. */
  emit<T extends EventType>(type: T, data: EventData<T>, frames: SubRunFrame[]): void;
  /** Writes the parent's buffered events (the child has no trace of its own). */
  persist(): Promise<void>;
}

/** The rooted path of a reference made by the agent at `callerFile`, checked against the chain. */
export function resolveSubRunFile(
  reference: string,
  callerFile: string | undefined,
  chain: readonly string[],
  node: string,
): string {
  let relative: string;
  try {
    relative = normalizeRootedPath(reference, 'agent.file');
  } catch (error) {
    throw toAgentError(error, 'INVALID_PARAMS', { node, field: 'agent' });
  }
  const file = joinRooted(rootedDirname(callerFile ?? ''), relative);
  if (chain.includes(file)) {
    throw new AgentError(
      'INVALID_AGENT',
      `agent file '${file}' calls itself through ${[...chain, file].join(' → ')}; sub-runs may not form a cycle`,
      {
        node,
        field: 'agent',
        details: { cycle: [...chain, file] },
      },
    );
  }
  if (chain.length > MAX_SUB_RUN_DEPTH) {
    throw new AgentError(
      'INVALID_AGENT',
      `sub-runs nest deeper than ${MAX_SUB_RUN_DEPTH} agent files (${[...chain, file].join(' → ')})`,
      { node, field: 'agent', details: { chain: [...chain, file] } },
    );
  }
  return file;
}

/** The compiled agent behind `file`, with load failures and refusals named from the caller's side. */
export async function loadSubAgent(
  source: AgentFileSource,
  file: string,
  caller: CompiledAgent,
  node: string,
): Promise<CompiledAgent> {
  let agent: CompiledAgent | undefined;
  try {
    agent = await source.load(file, caller.scripts, caller.registry);
  } catch (error) {
    const cause = toAgentError(error, 'INVALID_AGENT');
    const errors = cause.details['errors'];
    throw new AgentError(
      'INVALID_AGENT',
      `agent file '${file}' called by agent '${caller.name}' does not load: ${cause.plainMessage}`,
      {
        node,
        field: 'agent',
        details: { file, ...(Array.isArray(errors) ? { errors } : { errors: [{ ...cause.toJSON(), file }] }) },
      },
    );
  }
  if (agent === undefined)
    throw new AgentError(
      'NOT_FOUND',
      `agent '${caller.name}' calls agent file '${file}', which is not in ${source.description}`,
      { node, field: 'agent', details: { file } },
    );
  const pausing = [...agent.nodes.values()].find((candidate) => candidate.interruptBefore || candidate.interruptAfter);
  if (pausing !== undefined) {
    throw new AgentError(
      'INVALID_AGENT',
      `agent file '${file}' interrupts at node '${pausing.name}'; a sub-run cannot pause (only the top run can)`,
      { node, field: 'agent', details: { file } },
    );
  }
  return agent;
}

/** The child's failure as the parent node's error: the child's code, both agents named. */
export function subRunFailure(
  error: unknown,
  child: CompiledAgent,
  file: string,
  caller: CompiledAgent,
  node: string,
): AgentError {
  const cause = toAgentError(error, 'INTERNAL');
  const at = cause.node !== undefined ? ` at its node '${cause.node}'` : '';
  return new AgentError(
    cause.code,
    `sub-agent '${child.name}' (${file}) called by agent '${caller.name}' failed${at}: ${cause.plainMessage}`,
    {
      node,
      ...(cause.location.field !== undefined ? { field: cause.location.field } : {}),
      details: {
        ...cause.details,
        sub_run: { agent: child.name, file, ...(cause.node !== undefined ? { node: cause.node } : {}) },
        cause: cause.toJSON(),
      },
    },
  );
}
