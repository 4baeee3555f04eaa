/**
 * One lazily opened connection to the trace database, through idb's `wrap` so a caller-supplied
 * `IDBFactory` works (idb's `openDB` only uses the global `indexedDB`). When another tab needs a
 * newer version, the connection closes itself and the next operation reopens it.
 */
import { wrap, type IDBPDatabase } from 'idb';
import { idbStorageError } from './idb-errors.js';
import { DB_VERSION, upgradeDatabase, type TraceDatabase } from './schema.js';

export interface TraceConnection {
  /** The open database (opened and upgraded on first use). */
  get(): Promise<IDBPDatabase<TraceDatabase>>;
  close(): void;
}

export function createTraceConnection(factory: IDBFactory | undefined, dbName: string): TraceConnection {
  let opening: Promise<IDBPDatabase<TraceDatabase>> | undefined;

  async function open(): Promise<IDBPDatabase<TraceDatabase>> {
    if (factory === undefined) {
      throw idbStorageError(new Error('IndexedDB is not available in this environment'), `open database '${dbName}'`);
    }
    let upgradeFailure: unknown;
    try {
      const request = factory.open(dbName, DB_VERSION);
      request.addEventListener('upgradeneeded', (event) => {
        const transaction = request.transaction;
        if (transaction === null) return;
        upgradeDatabase(
          wrap(request.result) as IDBPDatabase<unknown>,
          event.oldVersion,
          wrap(transaction) as never,
        ).catch((error: unknown) => {
          upgradeFailure = error;
          try {
            transaction.abort();
          } catch {
            // Already finished or aborted: the open request reports it.
          }
        });
      });
      const database = (await wrap(request)) as unknown as IDBPDatabase<TraceDatabase>;
      database.addEventListener('versionchange', () => {
        database.close();
        opening = undefined;
      });
      database.addEventListener('close', () => {
        opening = undefined;
      });
      return database;
    } catch (error) {
      opening = undefined;
      throw idbStorageError(upgradeFailure ?? error, `open database '${dbName}' (version ${DB_VERSION})`);
    }
  }

  return {
    get() {
      opening ??= open();
      return opening;
    },
    close() {
      const current = opening;
      opening = undefined;
      void current?.then(
        (database) => database.close(),
        () => undefined,
      );
    },
  };
}
