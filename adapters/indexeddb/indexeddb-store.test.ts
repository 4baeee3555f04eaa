import 'fake-indexeddb/auto';
import { IDBFactory, IDBObjectStore as FakeObjectStore } from 'fake-indexeddb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  describeTraceStoreConformance,
  makeCheckpoint,
  makeEvent,
  makeRun,
} from '../../src/testing/storage-conformance.js';
import { createIndexedDbStores, DB_VERSION } from './index.js';

describeTraceStoreConformance('indexeddb', async () => {
  const stores = createIndexedDbStores({ indexedDB: new IDBFactory() });
  return { ...stores, cleanup: () => stores.close() };
});

type PutFunction = (this: IDBObjectStore, value: unknown, key?: IDBValidKey) => IDBRequest;
const originalPut = FakeObjectStore.prototype.put as unknown as PutFunction;

/** Makes puts into `storeName` fail the way a browser does when the quota is exhausted (or abort). */
function failPutsInto(storeName: string, failure: 'quota' | 'abort'): void {
  (FakeObjectStore.prototype as unknown as { put: PutFunction }).put = function (
    this: IDBObjectStore,
    value: unknown,
    key?: IDBValidKey,
  ) {
    if (this.name !== storeName) return originalPut.call(this, value, key);
    if (failure === 'abort') {
      const request = originalPut.call(this, value, key);
      this.transaction.abort();
      return request;
    }
    // fake-indexeddb's request runner: an operation that throws fails the request and aborts the
    // transaction with the error's name, as Chromium does for QuotaExceededError.
    const transaction = this.transaction as unknown as {
      _execRequestAsync(request: { operation: () => never; source: unknown }): IDBRequest;
    };
    return transaction._execRequestAsync({
      operation: () => {
        throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
      },
      source: this,
    });
  };
}

afterEach(() => {
  (FakeObjectStore.prototype as unknown as { put: PutFunction }).put = originalPut;
  vi.unstubAllGlobals();
});

describe('indexeddb store specifics', () => {
  it('writes events in batches of batchSize, one record per batch', async () => {
    const factory = new IDBFactory();
    const { traceStore, close } = createIndexedDbStores({ indexedDB: factory, batchSize: 10, dbName: 'batches' });
    for (let seq = 1; seq <= 25; seq++) await traceStore.appendEvents('run-1', [makeEvent('run-1', seq)]);
    const raw = await new Promise<unknown[]>((resolve, reject) => {
      const request = factory.open('batches');
      request.onsuccess = () => {
        const getAll = request.result.transaction('events').objectStore('events').getAll();
        getAll.onsuccess = () => {
          request.result.close();
          resolve(getAll.result);
        };
        getAll.onerror = () => reject(getAll.error);
      };
    });
    expect(raw.map((chunk) => (chunk as { count: number }).count)).toEqual([10, 10]);
    await traceStore.flush('run-1');
    expect((await traceStore.readEvents('run-1')).map((event) => event.seq)).toEqual(
      Array.from({ length: 25 }, (_, index) => index + 1),
    );
    close();
  });

  it('maps a quota error to STORAGE_ERROR with saved and lost counts, keeping stored batches', async () => {
    const { traceStore, close } = createIndexedDbStores({ indexedDB: new IDBFactory(), batchSize: 5 });
    for (let seq = 1; seq <= 5; seq++) await traceStore.appendEvents('run-1', [makeEvent('run-1', seq)]);
    failPutsInto('events', 'quota');
    await traceStore.appendEvents('run-1', [makeEvent('run-1', 6), makeEvent('run-1', 7)]);
    const failure = await traceStore.flush('run-1').then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toMatchObject({
      code: 'STORAGE_ERROR',
      details: { reason: 'QuotaExceededError', saved: 5, lost: 2 },
    });
    (FakeObjectStore.prototype as unknown as { put: PutFunction }).put = originalPut;
    await traceStore.flush('run-1');
    expect((await traceStore.readEvents('run-1')).map((event) => event.seq)).toEqual([1, 2, 3, 4, 5]);
    close();
  });

  it('rejects the append that fills a batch when its transaction aborts', async () => {
    const { traceStore, close } = createIndexedDbStores({ indexedDB: new IDBFactory(), batchSize: 3 });
    failPutsInto('events', 'abort');
    await expect(
      traceStore.appendEvents(
        'run-1',
        [1, 2, 3].map((seq) => makeEvent('run-1', seq)),
      ),
    ).rejects.toMatchObject({
      code: 'STORAGE_ERROR',
      details: { reason: 'AbortError', saved: 0, lost: 3 },
    });
    await expect(traceStore.flush('run-1')).rejects.toMatchObject({ code: 'STORAGE_ERROR' });
    await expect(traceStore.flush('run-1')).resolves.toBeUndefined();
    close();
  });

  it('maps a quota error on a run record to STORAGE_ERROR', async () => {
    const { traceStore, close } = createIndexedDbStores({ indexedDB: new IDBFactory() });
    failPutsInto('runs', 'quota');
    await expect(traceStore.putRun(makeRun('run-1', 'agent', 1))).rejects.toMatchObject({
      code: 'STORAGE_ERROR',
      details: { reason: 'QuotaExceededError' },
    });
    close();
  });

  it('is STORAGE_ERROR when IndexedDB is missing', async () => {
    vi.stubGlobal('indexedDB', undefined);
    const { traceStore } = createIndexedDbStores();
    await expect(traceStore.getRun('x')).rejects.toMatchObject({ code: 'STORAGE_ERROR' });
  });

  it('asks for persistent storage once, before the first write, and never fails on it', async () => {
    const persist = vi.fn(async () => {
      throw new Error('denied');
    });
    vi.stubGlobal('navigator', { storage: { persist } });
    const stores = createIndexedDbStores({ indexedDB: new IDBFactory() });
    await stores.traceStore.getRun('x');
    expect(persist).not.toHaveBeenCalled();
    await stores.traceStore.putRun(makeRun('a', 'agent', 1));
    await stores.traceStore.putRun(makeRun('b', 'agent', 2));
    expect(persist).toHaveBeenCalledTimes(1);
    expect(await stores.persisted()).toBeUndefined();
    stores.close();
  });

  it('applies retention after each finished run when configured', async () => {
    const { traceStore, close } = createIndexedDbStores({ indexedDB: new IDBFactory(), retention: { maxRuns: 2 } });
    for (let index = 0; index < 4; index++) await traceStore.putRun(makeRun(`run-${index}`, 'agent', index));
    expect((await traceStore.listRuns()).runs.map((run) => run.run_id)).toEqual(['run-3', 'run-2']);
    close();
  });

  it('upgrades a version 1 database created by an older build', async () => {
    const factory = new IDBFactory();
    await new Promise<void>((resolve, reject) => {
      const request = factory.open('old-build', 1);
      request.onupgradeneeded = () => {
        const database = request.result;
        const runs = database.createObjectStore('runs', { keyPath: 'run_id' });
        runs.createIndex('created_at', 'created_at');
        const events = database.createObjectStore('events', { keyPath: ['run_id', 'seq'] });
        const checkpoints = database.createObjectStore('checkpoints', { keyPath: 'run_id' });
        runs.put({ run_id: 'old-run', agent: 'legacy', status: 'interrupted', created_at: '2025-01-01T00:00:00.000Z' });
        runs.put({ run_id: 'older-run', agent: 'legacy', status: 'completed', created_at: '2024-01-01T00:00:00.000Z' });
        for (const seq of [2, 1, 3]) events.put(makeEvent('old-run', seq));
        checkpoints.put(makeCheckpoint('old-run', 'cp-old'));
      };
      request.onsuccess = () => {
        request.result.close();
        resolve();
      };
      request.onerror = () => reject(request.error);
    });

    const { traceStore, checkpointStore, close } = createIndexedDbStores({ indexedDB: factory, dbName: 'old-build' });
    expect((await traceStore.readEvents('old-run')).map((event) => event.seq)).toEqual([1, 2, 3]);
    expect(await traceStore.getRun('old-run')).toMatchObject({
      updated_at: '2025-01-01T00:00:00.000Z',
      status: 'interrupted',
    });
    expect((await traceStore.listRuns({ agent: 'legacy' })).runs.map((run) => run.run_id)).toEqual([
      'old-run',
      'older-run',
    ]);
    expect(await checkpointStore.loadLatest('old-run')).toEqual(makeCheckpoint('old-run', 'cp-old'));
    expect(await traceStore.applyRetention({ maxRuns: 1 })).toBe(1);
    await traceStore.appendEvents('old-run', [makeEvent('old-run', 4)]);
    await traceStore.flush('old-run');
    expect((await traceStore.readEvents('old-run')).map((event) => event.seq)).toEqual([1, 2, 3, 4]);
    expect(await checkpointStore.claim('old-run', 'cp-old')).toBe(true);
    close();
  });

  it('shares one database between two stores, and yields to a newer version opened elsewhere', async () => {
    const factory = new IDBFactory();
    const { traceStore, close } = createIndexedDbStores({ indexedDB: factory, dbName: 'shared' });
    await traceStore.putRun(makeRun('run-1', 'agent', 1));
    const second = createIndexedDbStores({ indexedDB: factory, dbName: 'shared' });
    expect((await second.traceStore.getRun('run-1'))?.agent).toBe('agent');
    second.close();
    // A newer build upgrades the database: this connection closes instead of blocking it, and
    // reopening at the older version is a STORAGE_ERROR (VersionError), not a hang.
    await new Promise<void>((resolve, reject) => {
      const request = factory.open('shared', DB_VERSION + 1);
      request.onsuccess = () => {
        request.result.close();
        resolve();
      };
      request.onerror = () => reject(request.error);
    });
    await expect(traceStore.getRun('run-1')).rejects.toMatchObject({
      code: 'STORAGE_ERROR',
      details: { reason: 'VersionError' },
    });
    close();
  });
});
