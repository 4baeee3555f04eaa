/**
 * Deno KV stores for traces and checkpoints (`tea-edge/adapters/deno-kv`), for Deno Deploy and
 * local Deno. Deno KV is strongly consistent by default, has atomic commits with checks (so a
 * claim is a true compare-and-set) and no per-key write rate; its limits are 64 KiB per value,
 * 2 KiB per key and 1,000 mutations / 800 KiB per commit, so long values are cut into pieces and
 * event batches are committed in groups. Keys are arrays, so run and agent names go in as they
 * are, whatever characters they hold (a name longer than 1,000 characters is refused by Deno KV's
 * key limit and surfaces as STORAGE_ERROR).
 *
 * @example
 * const kv = await Deno.openKv();
 * const { traceStore, checkpointStore } = createDenoKvStores(kv, { expireInMs: 30 * 86_400_000 });
 */
import { AgentError, type CheckpointStore, type TraceStore } from '../../src/host-storage.js';
import { DenoKvCheckpointStore } from './deno-kv-checkpoint-store.js';
import type { DenoKvKey, DenoKvLike } from './deno-kv-like.js';
import { DenoKvTraceStore } from './deno-kv-trace-store.js';

export type {
  DenoKvLike,
  DenoKvKey,
  DenoKvKeyPart,
  DenoKvAtomic,
  DenoKvEntry,
  DenoKvListIterator,
  DenoKvMaybeEntry,
} from './deno-kv-like.js';

export interface DenoKvStoresOptions {
  /** Key prefix (default `['tea']`). */
  prefix?: DenoKvKey;
  /** Milliseconds every key lives (Deno KV's `expireIn`); unset keeps keys until deleted. */
  expireInMs?: number;
  /** Largest value written in bytes (default 60,000, under Deno KV's 64 KiB). */
  maxValueBytes?: number;
}

export interface DenoKvStores {
  traceStore: TraceStore;
  checkpointStore: CheckpointStore;
}

/** Creates a trace store and a checkpoint store over one Deno KV database. */
export function createDenoKvStores(kv: DenoKvLike, options: DenoKvStoresOptions = {}): DenoKvStores {
  const prefix = options.prefix ?? ['tea'];
  const maxValueBytes = options.maxValueBytes ?? 60_000;
  if (!(maxValueBytes >= 16 && maxValueBytes <= 65_536)) {
    throw new AgentError('STORAGE_ERROR', `Deno KV maxValueBytes must be between 16 and 65536, got ${maxValueBytes}`);
  }
  const expireIn = options.expireInMs;
  if (expireIn !== undefined && !(Number.isInteger(expireIn) && expireIn > 0)) {
    throw new AgentError('STORAGE_ERROR', `Deno KV expireInMs must be a positive integer, got ${expireIn}`);
  }
  return {
    traceStore: new DenoKvTraceStore(kv, { prefix, maxValueBytes, expireIn }),
    checkpointStore: new DenoKvCheckpointStore(kv, { prefix, maxValueBytes, expireIn }),
  };
}
