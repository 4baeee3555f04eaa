/**
 * The history panel and the tab's IndexedDB stores, loaded after the first paint (their chunk:
 * history-studio.ts). Until IndexedDB opens there are no stores; a browser that refuses it (a
 * private window may) gets a history panel without the tab's runs.
 */
import type { AgentEvent } from '../src/core/events.js';
import type { RunRecord } from '../src/core/trace-store.js';
import { DATABASE_NAME } from './protocol.js';
import type { HistoryPanel, HistorySource } from './history-panel.js';

export type Stores = ReturnType<typeof import('../adapters/indexeddb/index.js').createIndexedDbStores>;

export interface LoadedHistory {
  panel: HistoryPanel;
  /** The tab's stores, when IndexedDB opened. */
  stores: Stores | undefined;
  /** The tab's runs as a history source (undefined without stores). */
  tabSource: HistorySource | undefined;
}

export function loadHistory(options: {
  root: HTMLElement;
  storage: Storage | undefined;
  announce(message: string): void;
  open(runId: string, events: AgentEvent[], label: string): void;
  report(record: RunRecord, events: AgentEvent[]): void;
}): Promise<LoadedHistory> {
  return import('./history-studio.js').then((module) => {
    let stores: Stores | undefined;
    try {
      stores = module.createIndexedDbStores({ dbName: DATABASE_NAME });
    } catch {
      stores = undefined;
    }
    const panel = module.createHistoryPanel({
      root: options.root,
      storage: options.storage,
      announce: options.announce,
      open: options.open,
      report: options.report,
    });
    const tabSource = stores ? module.tabHistory(stores.traceStore) : undefined;
    panel.setSource(tabSource);
    return { panel, stores, tabSource };
  });
}
