/**
 * IndexedDB trace and checkpoint stores for the browser (the web demo keeps every run here), via
 * `idb`. No Node imports: this module bundles for browsers and Web Workers.
 *
 * Guarantees and limits:
 * - Batching: `appendEvents` buffers a run's events and writes them when `batchSize` events
 *   (default 250) or ~1 MiB are waiting, as ONE record in ONE transaction; `flush(runId)` writes
 *   the rest and waits for every pending batch. Events not yet flushed are lost if the tab closes;
 *   the engine flushes at the end of a run and at every pause. `readEvents` flushes the run first.
 * - No transaction is held across an `await` of other work: the data is collected first, then a
 *   transaction is opened, requests are issued, and only `tx.done` / its own requests are awaited.
 * - Failures: a quota error (`QuotaExceededError`) or an aborted transaction is STORAGE_ERROR with
 *   `details: {reason, saved, lost}` (events of the run written before, events of the failed
 *   batch). The failed batch is rolled back whole; batches already stored stay intact. The error
 *   rejects the `appendEvents` that wrote the batch, and `flush` rejects with it too.
 * - Consistency: IndexedDB transactions are atomic and ordered; `claim` is one readwrite
 *   transaction, exact across tabs. Run records, checkpoints and insights are written through.
 * - Values come back as inert JSON (events, checkpoints and insights are stored as JSON text; run
 *   records are JSON-normalised before the structured clone).
 * - Retention (`maxRuns`, `maxAgeMs` on `updated_at`, ISO-8601 UTC strings compared as text) runs
 *   on demand through `applyRetention`, and after each finished run when `retention` is given.
 *   Deleting a run deletes its record and events, not its checkpoint.
 * - Persistence: `navigator.storage.persist()` is requested once, before the first write, when the
 *   browser offers it; a refusal or failure never fails the store (`persisted` tells the outcome).
 * - Schema: version 2 with an upgrade path from version 1 (see `schema.ts`). When another tab opens
 *   a newer version, this connection closes and reopens on next use.
 *
 * @example
 * const { traceStore, checkpointStore } = createIndexedDbStores({ retention: { maxRuns: 500 } });
 */
import type { CheckpointStore, RetentionPolicy, TraceStore } from '../../src/host-storage.js';
import { createIdbCheckpointStore } from './idb-checkpoint-store.js';
import { createTraceConnection } from './idb-connection.js';
import { createIdbTraceStore } from './idb-trace-store.js';
import { DEFAULT_DB_NAME } from './schema.js';

export { DB_VERSION, DEFAULT_DB_NAME } from './schema.js';

export interface IndexedDbStoreOptions {
  /** Database name; default `tea-edge-traces`. */
  dbName?: string;
  /** Applied after each finished run; also usable on demand through `traceStore.applyRetention`. */
  retention?: RetentionPolicy;
  /** Events per write batch; default 250. */
  batchSize?: number;
  /** The IndexedDB factory; default the global `indexedDB` (tests pass fake-indexeddb's). */
  indexedDB?: IDBFactory;
  /** Whether to ask for persistent storage before the first write; default true. */
  requestPersistence?: boolean;
  /** The clock used for age-based retention. */
  now?: () => number;
}

export interface IndexedDbStores {
  traceStore: TraceStore;
  checkpointStore: CheckpointStore;
  /** The answer to `navigator.storage.persist()` once asked: true, false, or undefined when unavailable. */
  persisted(): Promise<boolean | undefined>;
  /** Closes the database connection (it reopens on next use). */
  close(): void;
}

/** Asks the browser to keep this origin's data; resolves undefined when it cannot be asked. */
function askPersistence(): Promise<boolean | undefined> {
  try {
    const storage = (globalThis as { navigator?: { storage?: { persist?: () => Promise<boolean> } } }).navigator
      ?.storage;
    if (typeof storage?.persist !== 'function') return Promise.resolve(undefined);
    return Promise.resolve(storage.persist()).then(
      (granted) => Boolean(granted),
      () => undefined,
    );
  } catch {
    return Promise.resolve(undefined);
  }
}

/**
 * Creates the IndexedDB stores (the database opens on first use).
 *
 * @example
 * const stores = createIndexedDbStores({ dbName: 'my-app-traces', retention: { maxAgeMs: 30 * 86_400_000 } });
 * const run = runAgent(agent, input, stores);
 */
export function createIndexedDbStores(options: IndexedDbStoreOptions = {}): IndexedDbStores {
  const factory = options.indexedDB ?? (globalThis as { indexedDB?: IDBFactory }).indexedDB;
  const connection = createTraceConnection(factory, options.dbName ?? DEFAULT_DB_NAME);
  let persistence: Promise<boolean | undefined> | undefined;
  const traceStore = createIdbTraceStore(connection, {
    batchSize: Math.max(1, Math.floor(options.batchSize ?? 250)),
    batchBytes: 1024 * 1024,
    ...(options.retention !== undefined ? { retention: options.retention } : {}),
    now: options.now ?? (() => Date.now()),
    onFirstWrite: () => {
      if (options.requestPersistence !== false) persistence ??= askPersistence();
    },
  });
  return {
    traceStore,
    checkpointStore: createIdbCheckpointStore(connection),
    persisted: () => persistence ?? Promise.resolve(undefined),
    close: () => connection.close(),
  };
}
