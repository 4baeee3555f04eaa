import { describe, expect, it } from 'vitest';
import { describeTraceStoreConformance, makeEvent, makeRun } from '../testing/storage-conformance.js';
import { createMemoryStores } from './memory-store.js';
import { freezeJson, isSealedJson, sealFrozenList } from '../util/frozen-json.js';

describeTraceStoreConformance('memory', async () => createMemoryStores());

describe('memory store specifics', () => {
  it('rejects a value JSON cannot hold with STORAGE_ERROR', async () => {
    const { traceStore } = createMemoryStores();
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    await expect(traceStore.appendEvents('run', [makeEvent('run', 1, 'log', { cyclic })])).rejects.toMatchObject({
      code: 'STORAGE_ERROR',
    });
    await expect(traceStore.appendEvents('run', [makeEvent('run', 1, 'log', { big: 1n })])).rejects.toMatchObject({
      code: 'STORAGE_ERROR',
    });
    // The failure names the event; a batch with one bad event keeps none of it.
    const batch = [makeEvent('run', 1), makeEvent('run', 2, 'log', { big: 2n }), makeEvent('run', 3)];
    const error = await traceStore.appendEvents('run', batch).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'STORAGE_ERROR' });
    expect((error as Error).message).toContain("event 2 of run 'run'");
    expect(await traceStore.readEvents('run')).toEqual([]);
  });

  it('keeps the events of a sealed batch by reference and copies every other event both ways', async () => {
    const { traceStore } = createMemoryStores();
    // The engine's batches: events frozen one by one, the list sealed.
    const frozen = [
      freezeJson(makeEvent('run', 1, 'log', { nested: { list: [1, 'two'] } })),
      freezeJson(makeEvent('run', 2)),
    ];
    await traceStore.appendEvents('run', sealFrozenList(frozen) as typeof frozen);
    const plain = makeEvent('run', 3, 'log', { nested: { list: [3] } });
    // Frozen all the way down, but not sealed: no promise about what else holds it; copied.
    const frozenOnly = freezeJson(makeEvent('run', 4, 'log', { nested: { list: [4] } }));
    await traceStore.appendEvents('run', [plain, frozenOnly]);
    (plain.data as { nested: { list: unknown[] } }).nested.list.push('changed after append');
    const [first, second, third, fourth] = await traceStore.readEvents('run');
    expect(first).toBe(frozen[0]);
    expect(second).toBe(frozen[1]);
    expect(() => (first!.data as { nested: { list: unknown[] } }).nested.list.push(5)).toThrow(TypeError);
    expect(third).not.toBe(plain);
    expect(third!.data).toMatchObject({ nested: { list: [3] } });
    expect(fourth).not.toBe(frozenOnly);
    expect(fourth!.data).toMatchObject({ nested: { list: [4] } });
    // A list is sealed only by sealFrozenList: a frozen array, or a copy of a sealed one, is not.
    expect(isSealedJson(Object.freeze([...frozen]))).toBe(false);
    expect(isSealedJson(sealFrozenList([freezeJson(makeEvent('run', 5))]))).toBe(true);
  });

  it('reads events in seq order even when appended out of order', async () => {
    const { traceStore } = createMemoryStores();
    await traceStore.appendEvents('run', [makeEvent('run', 2), makeEvent('run', 1)]);
    await traceStore.appendEvents('run', [makeEvent('run', 3)]);
    expect((await traceStore.readEvents('run')).map((event) => event.seq)).toEqual([1, 2, 3]);
  });

  it('rejects a foreign cursor with INVALID_PARAMS', async () => {
    const { traceStore } = createMemoryStores();
    await traceStore.putRun(makeRun('a', 'agent', 1));
    await expect(traceStore.listRuns({ cursor: 'nonsense' })).rejects.toMatchObject({ code: 'INVALID_PARAMS' });
  });

  it('uses the injected clock for age-based retention', async () => {
    const { traceStore } = createMemoryStores({ now: () => Date.UTC(2026, 0, 2) });
    await traceStore.putRun(makeRun('old', 'agent', 0));
    expect(await traceStore.applyRetention({ maxAgeMs: 3_600_000 })).toBe(1);
  });
});
