/**
 * tea-edge/host/storage: everything a storage adapter is built on (adapters/: fs, IndexedDB,
 * Workers KV, Deno KV, R2, OPFS), and what an outside trace store, checkpoint store or file root
 * needs to behave as they do: the contracts, the STORAGE_ERROR they throw, JSON copies that keep
 * what a store holds apart from the caller's objects, run listing with cursors and retention,
 * UTF-8 splitting for stores with a value cap, rooted paths, retries. Nothing here reaches the
 * engine, so an adapter bundled on its own stays small.
 */

// The contracts
export type {
  Checkpoint,
  CheckpointStore,
  Insight,
  ListRunsOptions,
  RetentionPolicy,
  RunPage,
  RunRecord,
  TraceStore,
} from './core/trace-store.js';
export type { FileStore } from './core/file-store.js';
export type { AgentEvent } from './core/events.js';
export { AgentError } from './core/agent-error.js';

// What the adapters share
export { storageError } from './storage/storage-error.js';
export { fromStoredJson, inertCopy, toStoredJson } from './storage/json-copy.js';
export {
  compareRunsNewestFirst,
  decodeCursor,
  encodeCursor,
  listRunPage,
  pageSize,
  runsToRetire,
  type RunPosition,
} from './storage/run-listing.js';
export { splitUtf8 } from './storage/split-utf8.js';
export { joinRooted, rootedDirname, rootedPathRefusal } from './util/rooted-path.js';
export { quoteText } from './util/cut-text.js';

// Retries and messages
export { sleep } from './util/abort.js';
export { exponentialDelay } from './util/backoff.js';
export { messageOf } from './util/message-of.js';
