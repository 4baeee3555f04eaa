/**
 * The in-memory TraceStore and CheckpointStore: the reference implementation of docs/spec.md#7-storage-traces-and-checkpoints, used by
 * tests, benchmarks and single-process hosts.
 *
 * Guarantees: everything is consistent and immediate (`flush` has nothing to do); values are
 * copied as inert JSON on the way in and on the way out, so callers never share objects with the
 * store, except the events of a sealed batch (util/frozen-json.ts: the engine seals the batches of
 * events it makes): those are kept and handed out as they are, since
 * nobody can change them; a value JSON cannot hold is STORAGE_ERROR. Events are kept whole (cap
 * them first with `sanitizeEvent`); only the newest checkpoint of a run is kept; `claim` is atomic (one isolate,
 * no await between the check and the mark). Nothing survives the process. No module-level state:
 * each call to `createMemoryStores` owns its maps.
 */
import type { AgentEvent } from '../core/events.js';
import { fromStoredJson, toStoredJson } from './json-copy.js';
import { isSealedJson } from '../util/frozen-json.js';
import { listRunPage, runsToRetire } from './run-listing.js';
import type {
  Checkpoint,
  CheckpointStore,
  Insight,
  ListRunsOptions,
  RetentionPolicy,
  RunPage,
  RunRecord,
  TraceStore,
} from '../core/trace-store.js';

export interface MemoryStoreOptions {
  /** The clock used for age-based retention (milliseconds since the epoch). */
  now?: () => number;
}

export interface MemoryStores {
  traceStore: TraceStore;
  checkpointStore: CheckpointStore;
}

/**
 * Creates an empty in-memory trace store and checkpoint store.
 *
 * @example
 * const { traceStore, checkpointStore } = createMemoryStores();
 * const run = runAgent(agent, input, { traceStore, checkpointStore });
 */
export function createMemoryStores(options: MemoryStoreOptions = {}): MemoryStores {
  const now = options.now ?? (() => Date.now());
  /** Events of each run in append order: serialised, or kept as they are from a sealed batch. */
  const eventsByRun = new Map<string, StoredEvent[]>();
  /** Whether a run's events were appended out of seq order (then reads sort). */
  const unsortedRuns = new Set<string>();
  const lastSeqByRun = new Map<string, number>();
  const records = new Map<string, RunRecord>();
  const insights = new Map<string, string>();
  const checkpoints = new Map<string, { id: string; json: string }>();
  const claims = new Map<string, Set<string>>();

  function copyRecord(record: RunRecord): RunRecord {
    return fromStoredJson<RunRecord>(toStoredJson(record, `run record '${record.run_id}'`), 'run record');
  }

  const traceStore: TraceStore = {
    async appendEvents(runId: string, events: AgentEvent[]): Promise<void> {
      if (events.length === 0) return;
      // Every event is checked or serialised before any is kept: a batch with a bad event keeps nothing.
      const serialised = isSealedJson(events) ? events : events.map((event) => serialiseEvent(event, runId));
      let stored = eventsByRun.get(runId);
      if (stored === undefined) {
        stored = [];
        eventsByRun.set(runId, stored);
      }
      let lastSeq = lastSeqByRun.get(runId) ?? -Infinity;
      for (let index = 0; index < events.length; index++) {
        const seq = events[index]!.seq;
        if (!(seq > lastSeq)) unsortedRuns.add(runId);
        lastSeq = Math.max(lastSeq, seq);
        stored.push(serialised[index]!);
      }
      lastSeqByRun.set(runId, lastSeq);
    },

    async flush(): Promise<void> {
      // Writes are immediate.
    },

    async readEvents(runId: string): Promise<AgentEvent[]> {
      const stored = eventsByRun.get(runId) ?? [];
      const events = stored.map((kept) =>
        typeof kept === 'string' ? fromStoredJson<AgentEvent>(kept, `an event of run '${runId}'`) : kept,
      );
      if (unsortedRuns.has(runId)) events.sort((left, right) => left.seq - right.seq);
      return events;
    },

    async putRun(record: RunRecord): Promise<void> {
      records.set(record.run_id, copyRecord(record));
    },

    async getRun(runId: string): Promise<RunRecord | undefined> {
      const record = records.get(runId);
      return record === undefined ? undefined : copyRecord(record);
    },

    async listRuns(listOptions?: ListRunsOptions): Promise<RunPage> {
      const page = listRunPage(records.values(), listOptions);
      return { ...page, runs: page.runs.map(copyRecord) };
    },

    async deleteRun(runId: string): Promise<void> {
      records.delete(runId);
      eventsByRun.delete(runId);
      unsortedRuns.delete(runId);
      lastSeqByRun.delete(runId);
    },

    async applyRetention(policy: RetentionPolicy): Promise<number> {
      const retired = runsToRetire(records.values(), policy, now());
      for (const runId of retired) await traceStore.deleteRun(runId);
      return retired.length;
    },

    async getInsights(agent: string): Promise<Insight[]> {
      const stored = insights.get(agent);
      return stored === undefined ? [] : fromStoredJson<Insight[]>(stored, `insights of agent '${agent}'`);
    },

    async putInsights(agent: string, list: Insight[]): Promise<void> {
      insights.set(agent, toStoredJson(list, `insights of agent '${agent}'`));
    },
  };

  const checkpointStore: CheckpointStore = {
    async save(checkpoint: Checkpoint): Promise<void> {
      const json = toStoredJson(checkpoint, `checkpoint '${checkpoint.checkpoint_id}' of run '${checkpoint.run_id}'`);
      checkpoints.set(checkpoint.run_id, { id: checkpoint.checkpoint_id, json });
    },

    async loadLatest(runId: string): Promise<Checkpoint | undefined> {
      const stored = checkpoints.get(runId);
      return stored === undefined ? undefined : fromStoredJson<Checkpoint>(stored.json, `checkpoint of run '${runId}'`);
    },

    async delete(runId: string): Promise<void> {
      checkpoints.delete(runId);
    },

    async claim(runId: string, checkpointId: string): Promise<boolean> {
      let claimed = claims.get(runId);
      if (claimed === undefined) {
        claimed = new Set();
        claims.set(runId, claimed);
      }
      if (claimed.has(checkpointId)) return false;
      claimed.add(checkpointId);
      return true;
    },
  };

  return { traceStore, checkpointStore };
}

/** An event as kept: its JSON, or the event itself when its batch was sealed. */
type StoredEvent = string | AgentEvent;

/**
 * An event's JSON. This runs for every event of every run, so the text naming the event is only
 * built when the event cannot be stored (toStoredJson then throws the STORAGE_ERROR).
 */
function serialiseEvent(event: AgentEvent, runId: string): string {
  try {
    const text = JSON.stringify(event) as string | undefined;
    if (text !== undefined) return text;
  } catch {
    // Reported below, with the event named.
  }
  return toStoredJson(event, `event ${event.seq} of run '${runId}'`);
}
