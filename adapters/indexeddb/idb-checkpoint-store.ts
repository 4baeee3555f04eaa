/**
 * The IndexedDB CheckpointStore: the newest checkpoint per run (as JSON text, so it comes back
 * inert), and claims in the `meta` store. A claim is one readwrite transaction that reads the
 * claim key and writes it when absent; IndexedDB runs overlapping readwrite transactions one at a
 * time, so exactly one caller wins, across tabs too.
 */
import { fromStoredJson, toStoredJson, type Checkpoint, type CheckpointStore } from '../../src/host-storage.js';
import type { TraceConnection } from './idb-connection.js';
import { idbStorageError } from './idb-errors.js';

export function createIdbCheckpointStore(connection: TraceConnection): CheckpointStore {
  async function withDatabase<T>(
    action: string,
    work: (database: Awaited<ReturnType<TraceConnection['get']>>) => Promise<T>,
  ): Promise<T> {
    try {
      return await work(await connection.get());
    } catch (error) {
      throw idbStorageError(error, action);
    }
  }

  return {
    async save(checkpoint: Checkpoint): Promise<void> {
      const json = toStoredJson(checkpoint, `checkpoint '${checkpoint.checkpoint_id}' of run '${checkpoint.run_id}'`);
      const stored = { run_id: checkpoint.run_id, checkpoint_id: checkpoint.checkpoint_id, json };
      await withDatabase(`save checkpoint of run '${checkpoint.run_id}'`, (database) =>
        database.put('checkpoints', stored).then(() => undefined),
      );
    },

    async loadLatest(runId: string): Promise<Checkpoint | undefined> {
      const stored = await withDatabase(`load checkpoint of run '${runId}'`, (database) =>
        database.get('checkpoints', runId),
      );
      return stored === undefined ? undefined : fromStoredJson<Checkpoint>(stored.json, `checkpoint of run '${runId}'`);
    },

    async delete(runId: string): Promise<void> {
      await withDatabase(`delete checkpoint of run '${runId}'`, (database) => database.delete('checkpoints', runId));
    },

    async claim(runId: string, checkpointId: string): Promise<boolean> {
      return withDatabase(`claim checkpoint '${checkpointId}' of run '${runId}'`, async (database) => {
        const transaction = database.transaction('meta', 'readwrite');
        const key = ['claim', runId, checkpointId];
        const existing = await transaction.store.get(key);
        if (existing === undefined)
          transaction.store.put({ claimed_at: new Date().toISOString() }, key).catch(() => undefined);
        await transaction.done;
        return existing === undefined;
      });
    },
  };
}
