/**
 * The run options of one segment of a Deno run (worker/deno/deno-runs.ts): a trace store whose events
 * go through the run's event writer (written as emitted, each seq once) and whose records wait
 * for them, a checkpoint store, and the durable hooks (node checkpoints, recorded tool results)
 * over Deno KV. Once the writer is fenced (another process took the run over, or this one handed
 * it over) nothing more is written for the run: the writes are dropped, checkpoints refused.
 */
import { AgentError } from '../../src/core/agent-error.js';
import type { RunOptions } from '../../src/graph/run-types.js';
import type { CheckpointStore, TraceStore } from '../../src/core/trace-store.js';
import { restartsFor, type ResumePoint } from '../durable-continue.js';
import { headOf } from '../../src/graph/checkpoint-codec.js';
import type { DenoRunLog, EventWriter } from './deno-run-log.js';
import type { DenoRunState, RunCaller } from './deno-run-state.js';

export interface SegmentHost {
  traceStore: TraceStore;
  checkpointStore: CheckpointStore;
  log: DenoRunLog;
  state: DenoRunState;
  /** The host's own options (model overrides, secrets, limits). */
  runOptions?: Partial<RunOptions>;
}

/** `continuedFrom`: the point a run continued after a death goes on from (its restart count carries on). */
export function segmentOptions(
  host: SegmentHost,
  runId: string,
  writer: EventWriter,
  caller: RunCaller,
  continuedFrom: ResumePoint | undefined,
): RunOptions {
  const { role, owner } = caller;
  const { traceStore: base, checkpointStore, log, state } = host;
  const fenced = () => {
    if (writer.fenced) throw new AgentError('CONFLICT', `run '${runId}' was taken over by another process`);
  };
  const traceStore: TraceStore = {
    appendEvents: async (_id, events) => (writer.fenced ? undefined : writer.write(events)),
    flush: async () => (writer.fenced ? undefined : writer.drain()),
    async putRun(record) {
      if (writer.fenced) return;
      // A record never tells of events that are not stored yet (a finished run's `done`).
      await writer.drain();
      await base.putRun(record);
    },
    readEvents: (id) => log.eventsAfter(id, 0),
    getRun: (id) => base.getRun(id),
    listRuns: (options) => base.listRuns(options),
    deleteRun: (id) => base.deleteRun(id),
    applyRetention: (policy) => base.applyRetention(policy),
    getInsights: (agent) => base.getInsights(agent),
    putInsights: (agent, insights) => base.putInsights(agent, insights),
  };
  const checkpoints: CheckpointStore = {
    save: async (checkpoint) => {
      fenced();
      return checkpointStore.save(checkpoint);
    },
    loadLatest: (id) => checkpointStore.loadLatest(id),
    delete: (id) => checkpointStore.delete(id),
    claim: (id, checkpointId) => checkpointStore.claim(id, checkpointId),
  };
  return {
    ...host.runOptions,
    traceStore,
    checkpointStore: checkpoints,
    ...(role !== undefined ? { role } : {}),
    ...(owner !== undefined ? { owner } : {}),
    durability: {
      saveProgress: async (write) => {
        fenced();
        // The continued run saves one at the same place first: it keeps the count (restartsFor).
        await state.saveWrite(runId, write, restartsFor(headOf(write), continuedFrom));
      },
      recordedResult: (key) => state.recordedResult(runId, key),
      recordResult: (key, value) => state.recordResult(runId, key, value),
    },
  };
}
