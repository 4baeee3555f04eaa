/** The history of runs made in this tab: the IndexedDB trace store as a history source. */
import type { TraceStore } from '../src/core/trace-store.js';
import type { HistorySource } from './history-panel.js';

export function tabHistory(store: TraceStore): HistorySource {
  return {
    label: 'this tab (IndexedDB)',
    list: async () => (await store.listRuns({ limit: 1000 })).runs,
    readEvents: (runId) => store.readEvents(runId),
    remove: (runId) => store.deleteRun(runId),
    async store(record, events) {
      await store.putRun(record);
      await store.appendEvents(record.run_id, events);
      await store.flush(record.run_id);
    },
  };
}
