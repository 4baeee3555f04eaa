/**
 * Storage benchmark: events per second written (appended one event at a time, as the engine
 * does, then flushed) for a 10,000-event run, by the IndexedDB adapter on fake-indexeddb (the
 * Chromium figure comes from the web demo's browser bench), the memory store and the directory
 * store, plus reading the run back. The IndexedDB baseline is the same adapter with a batch of one
 * event (one transaction per event), measured on 1,000 events to keep the bench short. Each store
 * first writes a 1,000-event warm-up run.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createFsStores } from '../adapters/fs/index.js';
import { createIndexedDbStores } from '../adapters/indexeddb/index.js';
import type { AgentEvent } from '../src/core/events.js';
import { createMemoryStores } from '../src/storage/memory-store.js';
import type { TraceStore } from '../src/core/trace-store.js';
import type { BenchResult } from './bench-result.js';


const EVENTS = 10_000;

function makeEvents(runId: string, count: number): AgentEvent[] {
  return Array.from({ length: count }, (_, index) => ({
    type: index % 2 === 0 ? 'node_start' : 'node_end',
    run_id: runId,
    seq: index + 1,
    ts: new Date(Date.UTC(2026, 0, 1, 0, 0, 0, index)).toISOString(),
    node: ['generate', 'evaluate', 'correct'][index % 3]!,
    data: index % 2 === 0 ? {} : { update: { draft: `draft number ${index}`, score: 0.5, attempts: index % 7 }, duration_ms: 0.2 },
  })) as AgentEvent[];
}

/** Events per second for appending `events` one by one, then flushing; also checks they all landed. */
async function writeRate(traceStore: TraceStore, runId: string, events: AgentEvent[]): Promise<{ perSecond: number; readMs: number }> {
  const started = performance.now();
  for (const event of events) await traceStore.appendEvents(runId, [event]);
  await traceStore.flush(runId);
  const elapsed = performance.now() - started;
  const readStarted = performance.now();
  const stored = await traceStore.readEvents(runId);
  const readMs = performance.now() - readStarted;
  if (stored.length !== events.length) throw new Error(`storage bench: stored ${stored.length} of ${events.length} events`);
  return { perSecond: (events.length / elapsed) * 1000, readMs };
}

/** idb checks `instanceof IDBObjectStore` etc. on globals: provide fake-indexeddb's classes when absent. */
async function fakeIndexedDb(): Promise<typeof import('fake-indexeddb')> {
  const fake = await import('fake-indexeddb');
  const globals = globalThis as Record<string, unknown>;
  for (const name of ['IDBCursor', 'IDBCursorWithValue', 'IDBDatabase', 'IDBIndex', 'IDBKeyRange', 'IDBObjectStore', 'IDBRequest', 'IDBTransaction', 'IDBOpenDBRequest']) {
    globals[name] ??= (fake as Record<string, unknown>)[name];
  }
  return fake;
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
    results.push({ name: 'storage: fs write (buffered NDJSON appends), 10k-event run', value: fsRate.perSecond, unit: 'events/s' });
    results.push({ name: 'storage: fs read 10k events', value: fsRate.readMs, unit: 'ms' });
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
  return results;
}
