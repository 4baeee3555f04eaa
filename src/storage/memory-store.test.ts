import { describe, expect, it } from 'vitest';
import { describeTraceStore, makeEvent, makeRun } from '../../tests/conformance/storage-conformance.js';
import { createMemoryStores } from './memory-store.js';
import { freezeJson, isSealedJson, sealFrozenList, sealJson } from '../util/frozen-json.js';

describeTraceStore('memory', async () => createMemoryStores());

describe('memory store specifics', () => {
  it('rejects a value JSON cannot hold with STORAGE_ERROR', async () => {
    const { traceStore } = createMemoryStores();
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    await expect(traceStore.appendEvents('run', [makeEvent('run', 1, 'log', { cyclic })])).rejects.toMatchObject({ code: 'STORAGE_ERROR' });
    await expect(traceStore.appendEvents('run', [makeEvent('run', 1, 'log', { big: 1n })])).rejects.toMatchObject({ code: 'STORAGE_ERROR' });
    // The failure names the event; a batch with one bad event keeps none of it.
    const batch = [makeEvent('run', 1), makeEvent('run', 2, 'log', { big: 2n }), makeEvent('run', 3)];
    const error = await traceStore.appendEvents('run', batch).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'STORAGE_ERROR' });
    expect((error as Error).message).toContain("event 2 of run 'run'");
    expect(await traceStore.readEvents('run')).toEqual([]);
  });

  it('keeps sealed events by reference and copies every other event both ways', async () => {
    const { traceStore } = createMemoryStores();
    const sealed = sealJson(makeEvent('run', 1, 'log', { nested: { list: [1, 'two'] } }));
    const plain = makeEvent('run', 2, 'log', { nested: { list: [3] } });
    // Frozen all the way down, but not sealed: a frozen shell is no promise about its insides.
    const frozenOnly = Object.freeze(makeEvent('run', 3, 'log', { nested: { list: [4] } }));
    await traceStore.appendEvents('run', [sealed, plain, frozenOnly]);
    (plain.data as { nested: { list: unknown[] } }).nested.list.push('changed after append');
    ((frozenOnly.data as { nested: { list: unknown[] } }).nested.list).push('changed after append');
    const [first, second, third] = await traceStore.readEvents('run');
    expect(first).toBe(sealed);
    expect(isSealedJson(first)).toBe(true);
    expect(() => ((first!.data as { nested: { list: unknown[] } }).nested.list).push(5)).toThrow(TypeError);
    expect(second).not.toBe(plain);
    expect(second!.data).toMatchObject({ nested: { list: [3] } });
    expect(third!.data).toMatchObject({ nested: { list: [4] } });
    expect(isSealedJson(second)).toBe(false);
    // A copy of a sealed event (a spread) is not sealed: it can change, so it is copied.
    const respread = { ...sealed, seq: 4 };
    expect(isSealedJson(respread)).toBe(false);
    // A sealed batch (the engine's: events frozen one by one, the list branded) is kept as it is.
    const frozen = [freezeJson(makeEvent('batch', 1)), freezeJson(makeEvent('batch', 2))];
    await traceStore.appendEvents('batch', sealFrozenList(frozen) as typeof frozen);
    const read = await traceStore.readEvents('batch');
    expect(read[0]).toBe(frozen[0]);
    expect(read[1]).toBe(frozen[1]);
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
