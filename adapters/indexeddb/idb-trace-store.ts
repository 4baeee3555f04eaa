/**
 * The IndexedDB TraceStore: events buffered per run and written one transaction per batch; runs
 * listed through the `by_created` / `by_agent_created` indexes; retention through `by_created`
 * and `by_updated`. Every transaction is opened after the work it needs is collected and holds
 * only IndexedDB requests, never an `await` of anything else.
 */
import {
  fromStoredJson,
  inertCopy,
  toStoredJson,
  decodeCursor,
  encodeCursor,
  pageSize,
  type AgentEvent,
  type AgentError,
  type Insight,
  type ListRunsOptions,
  type RetentionPolicy,
  type RunPage,
  type RunRecord,
  type TraceStore,
} from '../../src/host-storage.js';
import type { TraceConnection } from './idb-connection.js';
import { idbStorageError } from './idb-errors.js';
import type { EventChunk, StoredRun } from './schema.js';

export interface IdbTraceStoreOptions {
  /** Events per batch (one transaction each); default 250. */
  batchSize: number;
  /** A batch is also written once its JSON reaches this many bytes; default 1 MiB. */
  batchBytes: number;
  /** Applied after each finished run (putRun with a status other than `running`). */
  retention?: RetentionPolicy;
  now: () => number;
  /** Called before the first write (asks the browser to keep the data). */
  onFirstWrite: () => void;
}

interface RunBuffer {
  parts: string[];
  bytes: number;
  firstSeq: number;
  lastSeq: number;
}

function eventRange(runId: string): IDBKeyRange {
  return IDBKeyRange.bound([runId, -Infinity], [runId, Infinity]);
}

export function createIdbTraceStore(connection: TraceConnection, options: IdbTraceStoreOptions): TraceStore {
  const buffers = new Map<string, RunBuffer>();
  const inFlight = new Map<string, Set<Promise<void>>>();
  const savedCounts = new Map<string, number>();
  const failures = new Map<string, AgentError>();
  let wroteOnce = false;

  function noteWrite(): void {
    if (wroteOnce) return;
    wroteOnce = true;
    options.onFirstWrite();
  }

  /** Writes the run's buffer as one batch in one transaction. */
  function writeBatch(runId: string): Promise<void> {
    const buffer = buffers.get(runId);
    if (buffer === undefined || buffer.parts.length === 0) return Promise.resolve();
    buffers.delete(runId);
    const chunk: EventChunk = {
      run_id: runId,
      seq: buffer.firstSeq,
      last_seq: buffer.lastSeq,
      count: buffer.parts.length,
      json: `[${buffer.parts.join(',')}]`,
    };
    const write = (async () => {
      // idb's `done` rejects with a bare AbortError when a request fails; the request's own error
      // (QuotaExceededError) is the reason worth reporting.
      let requestError: unknown;
      let transactionError: unknown;
      try {
        const database = await connection.get();
        const transaction = database.transaction('events', 'readwrite');
        transaction.store.put(chunk).catch((error: unknown) => {
          requestError = error;
        });
        await transaction.done.catch((error: unknown) => {
          transactionError = transaction.error ?? undefined;
          throw error;
        });
        savedCounts.set(runId, (savedCounts.get(runId) ?? 0) + chunk.count);
      } catch (error) {
        const reason =
          [requestError, transactionError].find(
            (candidate) =>
              (candidate as { name?: unknown } | undefined)?.name !== undefined &&
              (candidate as { name?: unknown }).name !== 'AbortError',
          ) ?? error;
        const failure = idbStorageError(reason, `write ${chunk.count} events of run '${runId}'`, {
          saved: savedCounts.get(runId) ?? 0,
          lost: chunk.count,
          run_id: runId,
        });
        failures.set(runId, failure);
        throw failure;
      }
    })();
    let pending = inFlight.get(runId);
    if (pending === undefined) inFlight.set(runId, (pending = new Set()));
    pending.add(write);
    const settled = (): void => {
      pending.delete(write);
      if (pending.size === 0 && inFlight.get(runId) === pending) inFlight.delete(runId);
    };
    write.then(settled, settled);
    return write;
  }

  /** Writes the buffer and waits for every pending batch of the run, failures left for `flush`. */
  async function drain(runId: string): Promise<void> {
    await writeBatch(runId).catch(() => undefined);
    const pending = inFlight.get(runId);
    if (pending !== undefined) await Promise.allSettled([...pending]);
  }

  async function runTransaction<T>(
    action: string,
    work: (database: Awaited<ReturnType<TraceConnection['get']>>) => Promise<T>,
  ): Promise<T> {
    try {
      return await work(await connection.get());
    } catch (error) {
      throw idbStorageError(error, action);
    }
  }

  async function deleteRuns(runIds: string[]): Promise<void> {
    if (runIds.length === 0) return;
    for (const runId of runIds) {
      buffers.delete(runId);
      savedCounts.delete(runId);
      failures.delete(runId);
    }
    await Promise.all(runIds.map((runId) => drain(runId)));
    await runTransaction(`delete ${runIds.length} run(s)`, async (database) => {
      const transaction = database.transaction(['runs', 'events'], 'readwrite');
      for (const runId of runIds) {
        transaction
          .objectStore('runs')
          .delete(runId)
          .catch(() => undefined);
        transaction
          .objectStore('events')
          .delete(eventRange(runId))
          .catch(() => undefined);
      }
      await transaction.done;
    });
  }

  const traceStore: TraceStore = {
    async appendEvents(runId: string, events: AgentEvent[]): Promise<void> {
      if (events.length === 0) return;
      const parts = events.map((event) => toStoredJson(event, `event ${event.seq} of run '${runId}'`));
      let buffer = buffers.get(runId);
      if (buffer === undefined)
        buffers.set(runId, (buffer = { parts: [], bytes: 0, firstSeq: Infinity, lastSeq: -Infinity }));
      for (const [index, event] of events.entries()) {
        buffer.parts.push(parts[index]!);
        buffer.bytes += parts[index]!.length;
        buffer.firstSeq = Math.min(buffer.firstSeq, event.seq);
        buffer.lastSeq = Math.max(buffer.lastSeq, event.seq);
      }
      noteWrite();
      if (buffer.parts.length >= options.batchSize || buffer.bytes >= options.batchBytes) await writeBatch(runId);
    },

    async flush(runId: string): Promise<void> {
      await drain(runId);
      const failure = failures.get(runId);
      if (failure !== undefined) {
        failures.delete(runId);
        throw failure;
      }
    },

    async readEvents(runId: string): Promise<AgentEvent[]> {
      await drain(runId);
      const chunks = await runTransaction(`read the events of run '${runId}'`, (database) =>
        database.getAll('events', eventRange(runId)),
      );
      const events = chunks.flatMap((chunk) => fromStoredJson<AgentEvent[]>(chunk.json, `events of run '${runId}'`));
      return events.sort((left, right) => left.seq - right.seq);
    },

    async putRun(record: RunRecord): Promise<void> {
      const stored = inertCopy(record, `run record '${record.run_id}'`) as unknown as StoredRun;
      noteWrite();
      await runTransaction(`save run record '${record.run_id}'`, (database) =>
        database.put('runs', stored).then(() => undefined),
      );
      if (options.retention !== undefined && record.status !== 'running') {
        // Retention is housekeeping: its failure must not fail the run that was just saved.
        await traceStore.applyRetention(options.retention).catch(() => undefined);
      }
    },

    async getRun(runId: string): Promise<RunRecord | undefined> {
      const stored = await runTransaction(`read run record '${runId}'`, (database) => database.get('runs', runId));
      return stored as unknown as RunRecord | undefined;
    },

    async listRuns(listOptions: ListRunsOptions = {}): Promise<RunPage> {
      const limit = pageSize(listOptions);
      const after = listOptions.cursor !== undefined ? decodeCursor(listOptions.cursor) : undefined;
      const agent = listOptions.agent;
      const runs = await runTransaction('list runs', async (database) => {
        const index = database.transaction('runs').store.index(agent === undefined ? 'by_created' : 'by_agent_created');
        const range =
          agent === undefined
            ? after === undefined
              ? null
              : IDBKeyRange.upperBound([after.created_at, after.run_id], true)
            : IDBKeyRange.bound(
                [agent],
                after === undefined ? [agent, []] : [agent, after.created_at, after.run_id],
                false,
                true,
              );
        const found: StoredRun[] = [];
        for (
          let cursor = await index.openCursor(range, 'prev');
          cursor && found.length <= limit;
          cursor = await cursor.continue()
        ) {
          found.push(cursor.value);
        }
        return found as unknown as RunRecord[];
      });
      const page = runs.slice(0, limit);
      const last = page[page.length - 1];
      return runs.length > limit && last !== undefined ? { runs: page, cursor: encodeCursor(last) } : { runs: page };
    },

    async deleteRun(runId: string): Promise<void> {
      await deleteRuns([runId]);
    },

    async applyRetention(policy: RetentionPolicy): Promise<number> {
      const retired = await runTransaction('apply retention', async (database) => {
        const store = database.transaction('runs').store;
        const found = new Set<string>();
        if (policy.maxRuns !== undefined) {
          const keep = Math.max(0, Math.floor(policy.maxRuns));
          let cursor = await store.index('by_created').openKeyCursor(null, 'prev');
          if (cursor && keep > 0) cursor = await cursor.advance(keep);
          for (; cursor; cursor = await cursor.continue()) found.add(cursor.primaryKey);
        }
        if (policy.maxAgeMs !== undefined) {
          const oldestKept = new Date(options.now() - policy.maxAgeMs).toISOString();
          for (const runId of await store.index('by_updated').getAllKeys(IDBKeyRange.upperBound(oldestKept, true)))
            found.add(runId);
        }
        return [...found];
      });
      await deleteRuns(retired);
      return retired.length;
    },

    async getInsights(agent: string): Promise<Insight[]> {
      const stored = await runTransaction(`read insights of agent '${agent}'`, (database) =>
        database.get('insights', agent),
      );
      return stored === undefined ? [] : fromStoredJson<Insight[]>(stored.json, `insights of agent '${agent}'`);
    },

    async putInsights(agent: string, insights: Insight[]): Promise<void> {
      const json = toStoredJson(insights, `insights of agent '${agent}'`);
      noteWrite();
      await runTransaction(`save insights of agent '${agent}'`, (database) =>
        database.put('insights', { agent, json }).then(() => undefined),
      );
    },
  };
  return traceStore;
}
