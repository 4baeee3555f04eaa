/**
 * Storage benchmark: events per second written (appended one event at a time, as the engine
 * does, then flushed) for a 10,000-event run, by the IndexedDB adapter on fake-indexeddb (the
 * Chromium figure comes from the web demo's browser bench), the memory store and the directory
 * store, plus reading the run back. The IndexedDB baseline is the same adapter with a batch of one
 * event (one transaction per event), measured on 1,000 events to keep the bench short. Each store
 * first writes a 1,000-event warm-up run.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createFsStores } from '../adapters/fs/index.js';
import { createIndexedDbStores } from '../adapters/indexeddb/index.js';
import type { AgentEvent } from '../src/core/events.js';
import { createMemoryStores } from '../src/storage/memory-store.js';
import type { RunRecord, TraceStore } from '../src/core/trace-store.js';
import { listRunPage } from '../src/storage/run-listing.js';
import type { BenchResult } from './bench-result.js';

const EVENTS = 10_000;
/** Runs in the directory whose first page `listRuns` answers. */
const LISTED_RUNS = 10_000;

function makeEvents(runId: string, count: number): AgentEvent[] {
  return Array.from({ length: count }, (_, index) => ({
    type: index % 2 === 0 ? 'node_start' : 'node_end',
    run_id: runId,
    seq: index + 1,
    ts: new Date(Date.UTC(2026, 0, 1, 0, 0, 0, index)).toISOString(),
    node: ['generate', 'evaluate', 'correct'][index % 3]!,
    data:
      index % 2 === 0
        ? {}
        : { update: { draft: `draft number ${index}`, score: 0.5, attempts: index % 7 }, duration_ms: 0.2 },
  })) as AgentEvent[];
}

/** Events per second for appending `events` one by one, then flushing; also checks they all landed. */
async function writeRate(
  traceStore: TraceStore,
  runId: string,
  events: AgentEvent[],
): Promise<{ perSecond: number; readMs: number }> {
  const started = performance.now();
  for (const event of events) await traceStore.appendEvents(runId, [event]);
  await traceStore.flush(runId);
  const elapsed = performance.now() - started;
  const readStarted = performance.now();
  const stored = await traceStore.readEvents(runId);
  const readMs = performance.now() - readStarted;
  if (stored.length !== events.length)
    throw new Error(`storage bench: stored ${stored.length} of ${events.length} events`);
  return { perSecond: (events.length / elapsed) * 1000, readMs };
}

/** idb checks `instanceof IDBObjectStore` etc. on globals: provide fake-indexeddb's classes when absent. */
async function fakeIndexedDb(): Promise<typeof import('fake-indexeddb')> {
  const fake = await import('fake-indexeddb');
  const globals = globalThis as Record<string, unknown>;
  for (const name of [
    'IDBCursor',
    'IDBCursorWithValue',
    'IDBDatabase',
    'IDBIndex',
    'IDBKeyRange',
    'IDBObjectStore',
    'IDBRequest',
    'IDBTransaction',
    'IDBOpenDBRequest',
  ]) {
    globals[name] ??= (fake as Record<string, unknown>)[name];
  }
  return fake;
}

/**
 * `listRuns({limit: 50})` of the file store at 10,000 runs: in a later process (a new store: the
 * run index read whole, once); warm while runs come and go (median of 20: the index's new lines
 * and one read of `runs/`); warm once `runs/` has not changed for two seconds (the directory is
 * not read again). The baseline reads every record, as the store did before the index.
 */
async function listingTimes(directory: string): Promise<BenchResult[]> {
  const writer = createFsStores(directory).traceStore;
  for (let index = 0; index < LISTED_RUNS; index += 100) {
    await Promise.all(
      Array.from({ length: 100 }, (_, offset) => {
        const created = new Date(Date.UTC(2026, 0, 1, 0, 0, 0, index + offset)).toISOString();
        return writer.putRun({
          run_id: `run-${index + offset}`,
          agent: 'bench',
          status: 'completed',
          created_at: created,
          updated_at: created,
        });
      }),
    );
  }
  const time = async (list: () => Promise<unknown>) => {
    const started = performance.now();
    await list();
    return performance.now() - started;
  };
  const everyRecord = async () => {
    const runsDirectory = path.join(directory, 'runs');
    const records: RunRecord[] = [];
    for (const name of await readdir(runsDirectory)) {
      const text = await readFile(path.join(runsDirectory, name, 'record.json'), 'utf8').catch(() => undefined);
      if (text !== undefined) records.push(JSON.parse(text) as RunRecord);
    }
    return listRunPage(records, { limit: 50 });
  };
  const later = createFsStores(directory).traceStore;
  const cold = await time(() => later.listRuns({ limit: 50 }));
  const median = async () => {
    const times: number[] = [];
    for (let round = 0; round < 20; round++) times.push(await time(() => later.listRuns({ limit: 50 })));
    return times.sort((left, right) => left - right)[10]!;
  };
  const changing = await median();
  await new Promise((resolve) => setTimeout(resolve, 2_100));
  const settled = await median();
  const baseline = await time(everyRecord);
  return [
    {
      name: 'storage: fs listRuns first page at 10k runs, later process',
      value: cold,
      unit: 'ms',
      baseline_value: baseline,
      ratio: baseline / cold,
    },
    {
      name: 'storage: fs listRuns first page at 10k runs, warm, runs/ changing (median of 20)',
      value: changing,
      unit: 'ms',
      baseline_value: baseline,
      ratio: baseline / changing,
    },
    {
      name: 'storage: fs listRuns first page at 10k runs, warm, runs/ settled (median of 20)',
      value: settled,
      unit: 'ms',
      baseline_value: baseline,
      ratio: baseline / settled,
    },
  ];
}

export async function run(): Promise<BenchResult[]> {
  const results: BenchResult[] = [];

  const fake = await fakeIndexedDb();
  const batched = createIndexedDbStores({ indexedDB: new fake.IDBFactory(), requestPersistence: false });
  await writeRate(batched.traceStore, 'warm-up', makeEvents('warm-up', 1_000));
  const idb = await writeRate(batched.traceStore, 'bench', makeEvents('bench', EVENTS));
  batched.close();
  const single = createIndexedDbStores({ indexedDB: new fake.IDBFactory(), requestPersistence: false, batchSize: 1 });
  const perEvent = await writeRate(single.traceStore, 'bench', makeEvents('bench', 1_000));
  single.close();
  results.push({
    name: 'storage: indexeddb (fake-indexeddb) write, 10k-event run',
    value: idb.perSecond,
    unit: 'events/s',
    baseline_value: perEvent.perSecond,
    ratio: idb.perSecond / perEvent.perSecond,
  });
  results.push({ name: 'storage: indexeddb (fake-indexeddb) read 10k events', value: idb.readMs, unit: 'ms' });

  const memory = createMemoryStores();
  await writeRate(memory.traceStore, 'warm-up', makeEvents('warm-up', 1_000));
  const memoryRate = await writeRate(memory.traceStore, 'bench', makeEvents('bench', EVENTS));
  results.push({ name: 'storage: memory write, 10k-event run', value: memoryRate.perSecond, unit: 'events/s' });

  const directory = await mkdtemp(path.join(tmpdir(), 'tea-storage-bench-'));
  try {
    const fsStores = createFsStores(directory);
    await writeRate(fsStores.traceStore, 'warm-up', makeEvents('warm-up', 1_000));
    const fsRate = await writeRate(fsStores.traceStore, 'bench', makeEvents('bench', EVENTS));
    results.push({
      name: 'storage: fs write (buffered NDJSON appends), 10k-event run',
      value: fsRate.perSecond,
      unit: 'events/s',
    });
    results.push({ name: 'storage: fs read 10k events', value: fsRate.readMs, unit: 'ms' });
    results.push(...(await listingTimes(directory)));
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
  return results;
}
