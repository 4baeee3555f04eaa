/**
 * The history part of the page, loaded after the first paint (like the editor) so that the
 * IndexedDB adapter and the history panel stay out of the first-load JavaScript.
 */
export { createIndexedDbStores } from '../adapters/indexeddb/index.js';
export { createHistoryPanel } from './history-panel.js';
export { tabHistory } from './tab-history.js';
