/**
 * Continuing a run whose host died mid-run, the same on every durable host (the run coordinator
 * on Cloudflare, `tea-edge serve` on Node): whether the run's node checkpoint can be continued, and
 * if not, the error that closes the run, saying why.
 *
 * Not continued: the run's max_duration_ms passed while its host was down (BUDGET_EXCEEDED), it was
 * already continued MAX_RESTARTS times from the same checkpoint (a node that kills its host would
 * loop forever), or the agent or node is not served any more (NOT_FOUND).
 */
import { AgentError } from '../src/core/agent-error.js';
import type { AgentEvent, DoneData, StopReason } from '../src/core/events.js';
import type { RunRecord } from '../src/core/trace-store.js';
import type { CompiledAgent } from '../src/graph/compiled-agent.js';
import type { NodeCheckpoint } from '../src/graph/run-types.js';
import { decodeCheckpoint } from '../src/graph/checkpoint-codec.js';
import type { CheckpointBase, CheckpointPatch } from '../src/graph/node-checkpoint.js';

/** Continuations from one node checkpoint before the run is given up. */
export const MAX_RESTARTS = 3;

/** The executing segment's node checkpoint, with what a host needs to continue it. */
export interface ResumePoint {
  checkpoint: NodeCheckpoint;
  /** The role the run was started or resumed with (tool permissions hold after a restart). */
  role: string | undefined;
  /** How many times a host continued the run from this checkpoint. */
  restarts: number;
}

/** A node checkpoint write as a durable host stores it: the write, and the restart count when it was written. */
export interface StoredWrite {
  restarts: number;
  /** A base (src/graph/checkpoint-codec.ts), or, stored before bases, the whole `checkpoint`. */
  base?: unknown;
  checkpoint?: unknown;
  patch?: unknown;
}

/**
 * The node checkpoint of a stored base and the patches after it (decodeCheckpoint), with the
 * restart count of its newest write. Corrupt records are STORAGE_ERROR naming `where`.
 */
export function readStoredPoint(
  base: StoredWrite,
  patches: readonly StoredWrite[],
  where: string,
): Omit<ResumePoint, 'role'> {
  const checkpoint = decodeCheckpoint(
    base.base ?? base.checkpoint,
    patches.map((stored) => stored?.patch),
    where,
  );
  const baseId = (base.base as CheckpointBase | undefined)?.base_id;
  let newest: StoredWrite = base;
  for (const stored of patches) {
    const patch = stored.patch as CheckpointPatch;
    if (
      patch.base_id === baseId &&
      (newest.patch === undefined || patch.index > (newest.patch as CheckpointPatch).index)
    )
      newest = stored;
  }
  return { checkpoint, restarts: Number(newest.restarts) || 0 };
}

export interface CannotContinue {
  error: AgentError;
  stopReason: StopReason;
}

/** Why the run cannot be continued from `point` (undefined: it can). `host` names the host in messages. */
export function whyNotContinue(
  point: ResumePoint,
  agent: CompiledAgent | undefined,
  now: number,
  host: string,
): CannotContinue | undefined {
  const { checkpoint } = point;
  const runId = checkpoint.run_id;
  if (checkpoint.deadline_at !== undefined && now >= checkpoint.deadline_at) {
    const error = new AgentError(
      'BUDGET_EXCEEDED',
      `run '${runId}' passed its max_duration_ms while its ${host} was down (at node '${checkpoint.node}')`,
      { node: checkpoint.node, details: { budget: 'max_duration_ms' } },
    );
    return { error, stopReason: 'max_duration_ms' };
  }
  if (point.restarts >= MAX_RESTARTS) {
    const error = new AgentError(
      'INTERNAL',
      `run '${runId}' was continued ${point.restarts} times at node '${checkpoint.node}' and its ${host} stopped each time; it is not continued again`,
      { node: checkpoint.node },
    );
    return { error, stopReason: 'error' };
  }
  if (agent === undefined || !agent.nodes.has(checkpoint.node)) {
    const missing =
      agent === undefined
        ? `agent '${checkpoint.agent}' is not served any more`
        : `agent '${checkpoint.agent}' has no node '${checkpoint.node}' any more`;
    return {
      error: new AgentError(
        'NOT_FOUND',
        `run '${runId}' stopped when its ${host} was restarted and cannot be continued: ${missing}`,
      ),
      stopReason: 'error',
    };
  }
  return undefined;
}

/**
 * The restart count a new node checkpoint carries: the count of the point the run was continued
 * from while the run has not got past that node visit (the continued run saves a checkpoint at the
 * same place first), else 0.
 */
export function restartsFor(
  checkpoint: Pick<NodeCheckpoint, 'node' | 'usage'>,
  continuedFrom: ResumePoint | undefined,
): number {
  if (continuedFrom === undefined) return 0;
  const from = continuedFrom.checkpoint;
  return from.node === checkpoint.node && from.usage.steps === checkpoint.usage.steps ? continuedFrom.restarts : 0;
}

/**
 * The record of a run whose host died after its `done` event was stored but before its final
 * record was: what the `done` event says (a record already final is kept).
 */
export function recordAfterDone(record: RunRecord, done: AgentEvent): RunRecord | undefined {
  if (record.status !== 'running' || done.type !== 'done') return undefined;
  const data = done.data as DoneData;
  return {
    ...record,
    status: data.status,
    stop_reason: data.stop_reason,
    ...(data.error !== undefined ? { error: data.error as RunRecord['error'] } : {}),
    updated_at: done.ts,
    event_count: done.seq,
  };
}

/** The error of a run that stopped with its host before its first node checkpoint. */
export function noCheckpointError(runId: string, host: string): AgentError {
  return new AgentError(
    'INTERNAL',
    `run '${runId}' stopped when its ${host} was restarted, before its first node checkpoint; it cannot be continued`,
  );
}
