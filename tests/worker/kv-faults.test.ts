/**
 * The Workers KV stores when the binding misbehaves: throws, answers 429, or lags (eventual
 * consistency); and what they cost: puts per run and writes per key per second.
 */
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKvStores, type KVNamespaceLike, type KvPutOptions } from '../../adapters/workers-kv/index.js';
import { runAgent } from '../../src/graph/run-agent.js';
import { loadAgent } from '../../src/load-agent-with-scripts.js';
import { makeEvent, makeRun } from '../../src/testing/storage-conformance.js';

let miniflare: Miniflare;
let namespaces: KVNamespaceLike[] = [];
let next = 0;

beforeAll(async () => {
  const names = Array.from({ length: 12 }, (_, index) => `KV${index}`);
  miniflare = new Miniflare({
    modules: true,
    script: 'export default { fetch() { return new Response(""); } };',
    kvNamespaces: names,
    compatibilityDate: '2026-05-01',
  });
  namespaces = await Promise.all(
    names.map(async (name) => (await miniflare.getKVNamespace(name)) as unknown as KVNamespaceLike),
  );
});

afterAll(async () => {
  await miniflare?.dispose();
});

interface Put {
  key: string;
  at: number;
  options: KvPutOptions | undefined;
}

/** Wraps a namespace: records puts, and fails operations while `fail` says so. */
function faulty(inner: KVNamespaceLike) {
  const puts: Put[] = [];
  const control = {
    puts,
    failPut: undefined as undefined | ((key: string) => Error | undefined),
    failGet: false,
    failList: false,
    hideFromList: undefined as undefined | ((key: string) => boolean),
  };
  const namespace: KVNamespaceLike = {
    async get(key) {
      if (control.failGet) throw new Error('KV GET failed: 500 Internal Server Error');
      return inner.get(key);
    },
    async put(key, value, options) {
      const failure = control.failPut?.(key);
      if (failure !== undefined) throw failure;
      puts.push({ key, at: Date.now(), options });
      return inner.put(key, value, options);
    },
    async delete(key) {
      return inner.delete(key);
    },
    async list(options) {
      if (control.failList) throw new Error('KV LIST failed: 503');
      const page = await inner.list(options);
      const hide = control.hideFromList;
      return hide === undefined ? page : { ...page, keys: page.keys.filter((key) => !hide(key.name)) };
    },
  };
  return { namespace, control };
}

const fast = { retryDelayMs: 5, claimSettleMs: 5 };

describe('workers-kv: failing binding', () => {
  it('a put that throws ends in STORAGE_ERROR and the run is never recorded as completed', async () => {
    const { namespace, control } = faulty(namespaces[next++]!);
    const { traceStore } = createKvStores(namespace, fast);
    await traceStore.putRun(makeRun('run-1', 'agent', 1, { status: 'running' }));
    await traceStore.appendEvents('run-1', [makeEvent('run-1', 1), makeEvent('run-1', 2)]);
    control.failPut = (key) => (key.includes(':ev:') ? new Error('KV PUT failed: 500 boom') : undefined);
    await expect(traceStore.flush('run-1')).rejects.toMatchObject({ code: 'STORAGE_ERROR' });
    await expect(traceStore.putRun(makeRun('run-1', 'agent', 1))).rejects.toMatchObject({ code: 'STORAGE_ERROR' });
    const reader = createKvStores(namespace, fast).traceStore;
    expect((await reader.getRun('run-1'))?.status).not.toBe('completed');
    // Once the binding recovers, the buffered events and the final record are written.
    control.failPut = undefined;
    await traceStore.putRun(makeRun('run-1', 'agent', 1));
    expect((await reader.getRun('run-1'))?.status).toBe('completed');
    expect((await reader.readEvents('run-1')).map((event) => event.seq)).toEqual([1, 2]);
  });

  it('retries a failed batch with the same events, so a half-written batch is completed, not mixed', async () => {
    const { namespace, control } = faulty(namespaces[next++]!);
    const { traceStore } = createKvStores(namespace, { ...fast, maxValueBytes: 200, retries: 0 });
    await traceStore.appendEvents('run-1', [makeEvent('run-1', 1, 'log', { text: 'a'.repeat(300) })]);
    let failures = 1;
    control.failPut = (key) =>
      /:0001:\d{4}$/.test(key) && failures-- > 0 ? new Error('KV PUT failed: 503') : undefined;
    await expect(traceStore.flush('run-1')).rejects.toMatchObject({ code: 'STORAGE_ERROR' });
    await traceStore.appendEvents('run-1', [makeEvent('run-1', 2)]);
    await traceStore.flush('run-1');
    const reader = createKvStores(namespace, fast).traceStore;
    expect((await reader.readEvents('run-1')).map((event) => event.seq)).toEqual([1, 2]);
  });

  it('retries a 429 and succeeds; a 429 that persists ends in STORAGE_ERROR', async () => {
    const { namespace, control } = faulty(namespaces[next++]!);
    const { traceStore } = createKvStores(namespace, fast);
    let failures = 1;
    control.failPut = () => (failures-- > 0 ? new Error('KV PUT failed: 429 Too Many Requests') : undefined);
    await traceStore.appendEvents('run-1', [makeEvent('run-1', 1)]);
    await traceStore.flush('run-1');
    expect(await traceStore.readEvents('run-1')).toHaveLength(1);
    control.failPut = () => new Error('KV PUT failed: 429 Too Many Requests');
    await traceStore.appendEvents('run-1', [makeEvent('run-1', 2)]);
    const failure = await traceStore.flush('run-1').catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 'STORAGE_ERROR' });
    expect((failure as Error).message).toContain('429');
  });

  it('reads and lists that fail end in STORAGE_ERROR; so does a failing claim', async () => {
    const { namespace, control } = faulty(namespaces[next++]!);
    const { traceStore, checkpointStore } = createKvStores(namespace, fast);
    control.failGet = true;
    await expect(traceStore.getRun('x')).rejects.toMatchObject({ code: 'STORAGE_ERROR' });
    await expect(checkpointStore.loadLatest('x')).rejects.toMatchObject({ code: 'STORAGE_ERROR' });
    await expect(checkpointStore.claim('x', 'cp')).rejects.toMatchObject({ code: 'STORAGE_ERROR' });
    control.failGet = false;
    control.failList = true;
    await expect(traceStore.listRuns()).rejects.toMatchObject({ code: 'STORAGE_ERROR' });
    await expect(traceStore.readEvents('x')).rejects.toMatchObject({ code: 'STORAGE_ERROR' });
  });

  it('refuses an expirationTtl under 60 s and puts the TTL on every key', async () => {
    expect(() => createKvStores(namespaces[0]!, { expirationTtl: 30 })).toThrow(
      expect.objectContaining({ code: 'STORAGE_ERROR' }),
    );
    const { namespace, control } = faulty(namespaces[next++]!);
    const { traceStore, checkpointStore } = createKvStores(namespace, { ...fast, expirationTtl: 3600 });
    await traceStore.appendEvents('run-1', [makeEvent('run-1', 1)]);
    await traceStore.putRun(makeRun('run-1', 'agent', 1));
    await checkpointStore.claim('run-1', 'cp-1');
    expect(control.puts.length).toBeGreaterThanOrEqual(4);
    expect(control.puts.every((put) => put.options?.expirationTtl === 3600)).toBe(true);
  });
});

describe('workers-kv: write pattern', () => {
  it('a 100-event run costs at most 10 puts and writes no key twice within a second', async () => {
    const { namespace, control } = faulty(namespaces[next++]!);
    const { traceStore, checkpointStore } = createKvStores(namespace, fast);
    await traceStore.putRun(makeRun('run-1', 'agent', 1, { status: 'running' }));
    for (let seq = 1; seq <= 99; seq++) await traceStore.appendEvents('run-1', [makeEvent('run-1', seq)]);
    await traceStore.putRun(makeRun('run-1', 'agent', 1, { status: 'interrupted' }));
    await checkpointStore.save({
      ...(await import('../../src/testing/storage-conformance.js')).makeCheckpoint('run-1', 'cp-1'),
    });
    await traceStore.appendEvents('run-1', [makeEvent('run-1', 100, 'done')]);
    await traceStore.flush('run-1');
    expect(control.puts.length).toBeLessThanOrEqual(10);
    const byKey = new Map<string, number[]>();
    for (const put of control.puts) byKey.set(put.key, [...(byKey.get(put.key) ?? []), put.at]);
    for (const times of byKey.values())
      for (let index = 1; index < times.length; index++)
        expect(times[index]! - times[index - 1]!).toBeGreaterThanOrEqual(1000);
    expect(await traceStore.readEvents('run-1')).toHaveLength(100);
  });

  it('a real 100-event run of the engine costs at most 10 puts and reads back whole', async () => {
    const { namespace, control } = faulty(namespaces[next++]!);
    const looper =
      'name: looper\nnodes:\n  - name: tick\n    run: return { i = (state.i or 0) + 1 }\n    goto:\n      - if: "state.i < 49"\n        to: tick\n      - to: __end__\n';
    const run = runAgent(loadAgent(looper, { file: 'looper.yaml' }), {}, createKvStores(namespace, fast));
    let events = 0;
    for await (const _event of run) events += 1;
    expect((await run.result).status).toBe('completed');
    expect(events).toBe(100);
    expect(control.puts.length).toBeLessThanOrEqual(10);
    const reader = createKvStores(namespace, fast).traceStore;
    expect(await reader.readEvents(run.runId)).toHaveLength(100);
    expect((await reader.getRun(run.runId))?.status).toBe('completed');
  });

  it('a quiet run becomes visible as running once it has lasted flushIntervalMs', async () => {
    const { namespace } = faulty(namespaces[next++]!);
    const { traceStore } = createKvStores(namespace, { ...fast, flushIntervalMs: 50 });
    const reader = createKvStores(namespace, fast).traceStore;
    await traceStore.putRun(makeRun('slow', 'agent', 1, { status: 'running' }));
    let seen = await reader.getRun('slow');
    for (let attempt = 0; attempt < 100 && seen === undefined; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      seen = await reader.getRun('slow');
    }
    expect(seen?.status).toBe('running');
    await traceStore.putRun(makeRun('slow', 'agent', 1));
    expect((await reader.getRun('slow'))?.status).toBe('completed');
  });

  it('a record rewritten within a second waits out the second instead of writing twice', async () => {
    const { namespace, control } = faulty(namespaces[next++]!);
    const { traceStore } = createKvStores(namespace, fast);
    await traceStore.putRun(makeRun('run-1', 'agent', 1, { status: 'interrupted' }));
    await traceStore.putRun(makeRun('run-1', 'agent', 1, { status: 'completed' }));
    const recordPuts = control.puts.filter((put) => put.key === 'tea:run:run-1');
    expect(recordPuts).toHaveLength(2);
    expect(recordPuts[1]!.at - recordPuts[0]!.at).toBeGreaterThanOrEqual(1000);
  });
});

describe('workers-kv: eventual consistency', () => {
  it('reads a trace from the record when the list does not show the newest batches yet', async () => {
    const { namespace, control } = faulty(namespaces[next++]!);
    const writer = createKvStores(namespace, fast).traceStore;
    await writer.appendEvents('run-1', [makeEvent('run-1', 1), makeEvent('run-1', 2)]);
    await writer.putRun(makeRun('run-1', 'agent', 1));
    control.hideFromList = (key) => key.includes(':ev:');
    const reader = createKvStores(namespace, fast).traceStore;
    expect((await reader.readEvents('run-1')).map((event) => event.seq)).toEqual([1, 2]);
  });

  it('leaves out a batch whose pieces are not all visible instead of returning half of it', async () => {
    const { namespace } = faulty(namespaces[next++]!);
    const writer = createKvStores(namespace, { ...fast, maxValueBytes: 64 }).traceStore;
    await writer.appendEvents('run-1', [makeEvent('run-1', 1, 'log', { text: 'x'.repeat(200) })]);
    await writer.flush('run-1');
    await writer.appendEvents('run-1', [makeEvent('run-1', 2)]);
    await writer.flush('run-1');
    const pieces = (await namespace.list({ prefix: 'tea:ev:run-1:000000000001:' })).keys;
    expect(pieces.length).toBeGreaterThan(2);
    await namespace.delete(pieces[1]!.name);
    const reader = createKvStores(namespace, fast).traceStore;
    expect((await reader.readEvents('run-1')).map((event) => event.seq)).toEqual([2]);
  });
});
