/**
 * Runs the shared storage conformance suite (src/testing/storage-conformance.ts, the very
 * file vitest runs) against the Deno KV stores inside Deno, over `Deno.openKv(':memory:')`, and
 * prints the results as one JSON line. Spawned by tests/deno/deno-kv.test.ts:
 *   deno run --unstable-kv --sloppy-imports --import-map tests/deno/import-map.json tests/deno/deno-kv-conformance.ts
 */
import { createDenoKvStores, type DenoKvLike } from '../../adapters/deno-kv/index.js';
import { describeTraceStoreConformance } from '../../src/testing/storage-conformance.js';
import { describe, expect, it, run } from './vitest-shim.js';

declare const Deno: { openKv(path?: string): Promise<DenoKvLike & { close(): void }> };

describeTraceStoreConformance('deno-kv', async () => {
  const kv = await Deno.openKv(':memory:');
  return { ...createDenoKvStores(kv), cleanup: () => kv.close() };
});
describeTraceStoreConformance('deno-kv (2 KiB values)', async () => {
  const kv = await Deno.openKv(':memory:');
  return { ...createDenoKvStores(kv, { maxValueBytes: 2048, prefix: ['small', 1] }), cleanup: () => kv.close() };
});

describe('deno-kv: failing database', () => {
  it('a commit or read that throws ends in STORAGE_ERROR; a failed final write never records completed', async () => {
    const kv = await Deno.openKv(':memory:');
    let failing = false;
    const broken: DenoKvLike = {
      get: (key) => (failing ? Promise.reject(new Error('database is locked')) : kv.get(key)),
      set: (key, value, options) => kv.set(key, value, options),
      delete: (key) => kv.delete(key),
      list: (selector, options) => kv.list(selector, options),
      atomic: () => {
        const atomic = kv.atomic();
        const commit = atomic.commit.bind(atomic);
        atomic.commit = () => (failing ? Promise.reject(new Error('database is locked')) : commit());
        return atomic;
      },
    };
    const { traceStore, checkpointStore } = createDenoKvStores(broken);
    await traceStore.appendEvents('run-1', [
      { type: 'log', run_id: 'run-1', seq: 1, ts: new Date(0).toISOString(), data: { source: 'lua', message: '' } },
    ]);
    failing = true;
    await expect(traceStore.flush('run-1')).rejects.toMatchObject({ code: 'STORAGE_ERROR' });
    const record = {
      run_id: 'run-1',
      agent: 'a',
      status: 'completed' as const,
      created_at: new Date(0).toISOString(),
      updated_at: new Date(0).toISOString(),
    };
    await expect(traceStore.putRun(record)).rejects.toMatchObject({ code: 'STORAGE_ERROR' });
    await expect(traceStore.getRun('run-1')).rejects.toMatchObject({ code: 'STORAGE_ERROR' });
    await expect(checkpointStore.claim('run-1', 'cp')).rejects.toMatchObject({ code: 'STORAGE_ERROR' });
    failing = false;
    expect(await traceStore.getRun('run-1')).toBeUndefined();
    await traceStore.putRun(record);
    expect((await traceStore.readEvents('run-1')).length).toBe(1);
    kv.close();
  });
});

// The shim must be able to fail, or a green run would prove nothing.
const shimFails = [
  () => expect({ a: 1 }).toEqual({ a: 2 }),
  () => expect([1]).toHaveLength(2),
  () => expect({ a: { b: 1 } }).toMatchObject({ a: { b: 2 } }),
].every((check) => {
  try {
    check();
    return false;
  } catch {
    return true;
  }
});
console.log(JSON.stringify({ shimFails, results: await run() }));
