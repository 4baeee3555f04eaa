/**
 * Workers KV stores for traces and checkpoints (`tea-edge/adapters/workers-kv`).
 *
 * How it respects KV (https://developers.cloudflare.com/kv/platform/limits/):
 * - **One write per key per second.** Events are buffered and written as batches, each under a
 *   new key `ev:<run>:<first seq>:<piece>:<pieces>` that is never rewritten; a batch is written at
 *   `flush`, or by an append once the buffer is `flushIntervalMs` old. A record with status
 *   `running` is held back and written with the next batch (or by a timer once the run has
 *   lasted `flushIntervalMs`); so a short run writes its record once, at the end. A final status (completed, failed, interrupted, cancelled) is always
 *   written, after the run's events are durable; when the same key was written less than a second
 *   before by this store, the write waits out the rest of that second (the one place it waits).
 *   A 429 is retried with backoff; what still fails is `STORAGE_ERROR`, and a failed event write
 *   leaves the record unwritten, so no run is reported completed with its trace lost.
 * - **Values ≤ 25 MiB:** a batch is NDJSON cut into pieces of at most `maxValueBytes`.
 * - **Keys ≤ 512 bytes:** run and agent names that are not short and plain are SHA-256 hashed.
 * - **Lists ≤ 1,000 keys a page:** runs are listed from index keys whose names carry an inverted
 *   creation time, so KV's ascending order is newest first; the page cursor is KV's cursor.
 * - **Retention:** `expirationTtl` (≥ 60 s) on every key, and `applyRetention` (max runs, max age).
 * - **Eventual consistency:** a write is visible at once where it was made, and elsewhere within
 *   about 60 s. A record or list read in another location may be stale or miss a recent run; an
 *   event batch whose pieces are not all visible yet is left out of `readEvents` whole, never half
 *   read. Resuming reads the checkpoint key (written once per pause), not the list. Claims: see
 *   kv-checkpoint-store.ts.
 *
 * @example
 * const { traceStore, checkpointStore } = createKvStores(env.TRACES, { expirationTtl: 30 * 86400 });
 */
import { AgentError, type CheckpointStore, type TraceStore } from '../../src/host-storage.js';
import { KvCheckpointStore } from './kv-checkpoint-store.js';
import type { KVNamespaceLike } from './kv-namespace-like.js';
import { KvTraceStore } from './kv-trace-store.js';
import { KvWriter } from './kv-writer.js';

export type { KVNamespaceLike, KvListKey, KvListResult, KvPutOptions } from './kv-namespace-like.js';

export interface KvStoresOptions {
  /** Prepended to every key (default `tea:`), so one namespace can hold other data too. */
  prefix?: string;
  /** Seconds every key lives (KV's `expirationTtl`, at least 60); unset keeps keys until deleted. */
  expirationTtl?: number;
  /** Largest value written in bytes (default 24 MiB, under KV's 25 MiB). */
  maxValueBytes?: number;
  /** Age of buffered events at which an append writes them (default 1000 ms). */
  flushIntervalMs?: number;
  /** Minimum milliseconds between two writes of one key (default 1000, KV's limit). */
  minWriteIntervalMs?: number;
  /** Retries of a failed put (default 2) and the first retry delay (default 1000 ms). */
  retries?: number;
  retryDelayMs?: number;
  /** Milliseconds a claim waits before reading its token back (default 50). */
  claimSettleMs?: number;
}

export interface KvStores {
  traceStore: TraceStore;
  checkpointStore: CheckpointStore;
}

/** Creates a trace store and a checkpoint store over one KV namespace. */
export function createKvStores(namespace: KVNamespaceLike, options: KvStoresOptions = {}): KvStores {
  const prefix = options.prefix ?? 'tea:';
  if (prefix.length > 64) throw new AgentError('STORAGE_ERROR', `Workers KV key prefix is longer than 64 characters`);
  const expirationTtl = options.expirationTtl;
  if (expirationTtl !== undefined && !(Number.isInteger(expirationTtl) && expirationTtl >= 60)) {
    throw new AgentError(
      'STORAGE_ERROR',
      `Workers KV expirationTtl must be an integer of at least 60 seconds, got ${expirationTtl}`,
    );
  }
  const maxValueBytes = options.maxValueBytes ?? 24 * 1024 * 1024;
  if (!(maxValueBytes >= 16 && maxValueBytes <= 25 * 1024 * 1024)) {
    throw new AgentError(
      'STORAGE_ERROR',
      `Workers KV maxValueBytes must be between 16 bytes and 25 MiB, got ${maxValueBytes}`,
    );
  }
  const writer = new KvWriter(namespace, {
    minWriteIntervalMs: options.minWriteIntervalMs ?? 1000,
    retries: options.retries ?? 2,
    retryDelayMs: options.retryDelayMs ?? 1000,
    expirationTtl,
  });
  return {
    traceStore: new KvTraceStore(writer, { prefix, maxValueBytes, flushIntervalMs: options.flushIntervalMs ?? 1000 }),
    checkpointStore: new KvCheckpointStore(writer, namespace, {
      prefix,
      claimSettleMs: options.claimSettleMs ?? 50,
      expirationTtl,
    }),
  };
}
