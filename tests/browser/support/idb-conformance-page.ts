/**
 * Bundled for Chromium by tests/browser/indexeddb-adapter.test.ts (with `vitest` aliased to the
 * small shim in tests/deno/): runs the shared storage conformance suite against the IndexedDB
 * adapter over real IndexedDB, and measures events/s for a 10,000-event run. Results are read
 * by the test through `window.teaConformance`.
 */
import { createIndexedDbStores } from '../../../adapters/indexeddb/index.js';
import { describeTraceStoreConformance, makeEvent } from '../../../src/testing/storage-conformance.js';
import { expect, run } from '../../deno/vitest-shim.js';

let counter = 0;
const freshName = () => `tea-conformance-${Date.now()}-${counter++}`;

describeTraceStoreConformance('indexeddb (Chromium)', async () => {
  const dbName = freshName();
  const stores = createIndexedDbStores({ dbName });
  return {
    ...stores,
    cleanup: async () => {
      await (stores as { close?: () => Promise<void> | void }).close?.();
      indexedDB.deleteDatabase(dbName);
    },
  };
});

/** Writes `count` events of one run through the adapter in the engine's way (append, then flush). */
async function eventsPerSecond(
  count: number,
  batch: number,
): Promise<{ events_per_second: number; read_back: number; ms: number }> {
  const dbName = freshName();
  const { traceStore } = createIndexedDbStores({ dbName });
  const runId = 'bench-run';
  await traceStore.putRun({
    run_id: runId,
    agent: 'bench',
    status: 'running',
    created_at: new Date().toISOString(),
    updated_at: new Date().toISOString(),
  });
  const started = performance.now();
  for (let seq = 1; seq <= count; seq += batch) {
    const events = [];
    for (let index = seq; index < seq + batch && index <= count; index++)
      events.push(makeEvent(runId, index, 'log', { message: `event ${index}` }));
    await traceStore.appendEvents(runId, events);
  }
  await traceStore.flush(runId);
  const ms = performance.now() - started;
  const readBack = (await traceStore.readEvents(runId)).length;
  indexedDB.deleteDatabase(dbName);
  return { events_per_second: Math.round((count / ms) * 1000), read_back: readBack, ms: Math.round(ms) };
}

/** The shim must be able to fail, or a green run proves nothing. */
function shimFails(): boolean {
  return [() => expect({ a: 1 }).toEqual({ a: 2 }), () => expect([1]).toHaveLength(2)].every((check) => {
    try {
      check();
      return false;
    } catch {
      return true;
    }
  });
}

(globalThis as Record<string, unknown>).teaConformance = { run, eventsPerSecond, shimFails };
