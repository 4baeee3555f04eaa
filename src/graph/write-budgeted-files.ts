/**
 * The host's file root as a run hands it to actions: every write is charged to the run's
 * `max_write_bytes` budget first (run-budget.ts), so a refused write never reaches the root and
 * every writer through the seam (file.write today, any action a host adds) counts the same.
 */
import type { FileStore } from '../core/file-store.js';

export function writeBudgetedFiles(store: FileStore, charge: (bytes: number) => void): FileStore {
  return {
    description: store.description,
    read: (path, maxBytes) => store.read(path, maxBytes),
    async write(path, bytes) {
      charge(bytes.byteLength);
      await store.write(path, bytes);
    },
  };
}
