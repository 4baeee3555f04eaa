/** The history of runs made in this tab: the IndexedDB trace store as a history source. */
import type { TraceStore } from '../src/core/trace-store.js';
import type { HistorySource } from './history-panel.js';

/** Events stored per task when a run is imported. */
const STORE_SLICE = 1000;

export function tabHistory(store: TraceStore): HistorySource {
  return {
    label: 'this tab (IndexedDB)',
    list: async () => (await store.listRuns({ limit: 1000 })).runs,
    readEvents: (runId) => store.readEvents(runId),
    remove: (runId) => store.deleteRun(runId),
    async store(record, events) {
      await store.putRun(record);
      // In slices with a task between them: copying 10,000 events in one go holds the page for a
      // long task of its own (the slices keep their order: each waits for the one before).
      for (let start = 0; start < events.length; start += STORE_SLICE) {
        if (start > 0) await new Promise((resolve) => setTimeout(resolve, 0));
        await store.appendEvents(record.run_id, events.slice(start, start + STORE_SLICE));
      }
      await store.flush(record.run_id);
    },
  };
}
