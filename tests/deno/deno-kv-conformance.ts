/**
 * Runs the shared storage conformance suite (tests/conformance/storage-conformance.ts, the very
 * file vitest runs) against the Deno KV stores inside Deno, over `Deno.openKv(':memory:')`, and
 * prints the results as one JSON line. Spawned by tests/deno/deno-kv.test.ts:
 *   deno run --unstable-kv --sloppy-imports --import-map tests/deno/import-map.json tests/deno/deno-kv-conformance.ts
 */
import { createDenoKvStores, type DenoKvLike } from '../../adapters/deno-kv/index.js';
import { describeTraceStore } from '../conformance/storage-conformance.js';
import { expect, run } from './vitest-shim.js';

declare const Deno: { openKv(path?: string): Promise<DenoKvLike & { close(): void }> };

describeTraceStore('deno-kv', async () => {
  const kv = await Deno.openKv(':memory:');
  return { ...createDenoKvStores(kv), cleanup: () => kv.close() };
});
describeTraceStore('deno-kv (2 KiB values)', async () => {
  const kv = await Deno.openKv(':memory:');
  return { ...createDenoKvStores(kv, { maxValueBytes: 2048, prefix: ['small', 1] }), cleanup: () => kv.close() };
});

// The shim must be able to fail, or a green run would prove nothing.
const shimFails = [() => expect({ a: 1 }).toEqual({ a: 2 }), () => expect([1]).toHaveLength(2), () => expect({ a: { b: 1 } }).toMatchObject({ a: { b: 2 } })].every((check) => {
  try {
    check();
    return false;
  } catch {
    return true;
  }
});
console.log(JSON.stringify({ shimFails, results: await run() }));
