/**
 * KV access with the rules Workers KV imposes: a key is written at most once per second by this
 * store (a second write waits out the rest of the interval), a 429 or transient failure is retried
 * with backoff, and every failure ends as an AgentError with code STORAGE_ERROR naming the
 * operation and key. The last-write times live in the store instance, never at module level.
 */
import { sleep, exponentialDelay, messageOf, storageError, type AgentError } from '../../src/host-storage.js';
import type { KVNamespaceLike, KvListResult, KvPutOptions } from './kv-namespace-like.js';

export interface KvWriterOptions {
  /** Minimum milliseconds between two writes of the same key (default 1000, KV's limit). */
  minWriteIntervalMs: number;
  /** Retries after a failed put, each after a growing delay (default 2). */
  retries: number;
  /** First retry delay in milliseconds, doubled each time, plus jitter (default 1000). */
  retryDelayMs: number;
  /** Seconds to keep every key (`expirationTtl`), or undefined to keep keys until deleted. */
  expirationTtl: number | undefined;
}

export class KvWriter {
  readonly #namespace: KVNamespaceLike;
  readonly #options: KvWriterOptions;
  readonly #lastWrite = new Map<string, number>();

  constructor(namespace: KVNamespaceLike, options: KvWriterOptions) {
    this.#namespace = namespace;
    this.#options = options;
  }

  /** Milliseconds until `key` may be written again by this store (0 when it may now). */
  waitFor(key: string): number {
    const last = this.#lastWrite.get(key);
    return last === undefined ? 0 : Math.max(0, last + this.#options.minWriteIntervalMs - Date.now());
  }

  /** Writes a key, pacing repeated writes and retrying failures; rejects with STORAGE_ERROR. */
  async put(key: string, value: string, options: KvPutOptions = {}): Promise<void> {
    const putOptions: KvPutOptions = { ...options };
    if (this.#options.expirationTtl !== undefined) putOptions.expirationTtl = this.#options.expirationTtl;
    let attempt = 0;
    for (;;) {
      const wait = this.waitFor(key);
      if (wait > 0) await sleep(wait);
      const previous = this.#lastWrite.get(key);
      try {
        // Marked before the await so a concurrent write of the same key waits its turn.
        this.#lastWrite.set(key, Date.now());
        await this.#namespace.put(key, value, putOptions);
        this.#lastWrite.set(key, Date.now());
        this.#forgetOldWrites();
        return;
      } catch (error) {
        if (previous === undefined) this.#lastWrite.delete(key);
        else this.#lastWrite.set(key, previous);
        if (attempt >= this.#options.retries || !isRetryable(error)) throw kvFailure('put', key, error);
        attempt += 1;
        const delay = exponentialDelay(attempt, this.#options.retryDelayMs);
        await sleep(delay + Math.floor(Math.random() * Math.max(1, delay / 4)));
      }
    }
  }

  /** Drops write times older than the interval once many accumulate (long-lived isolates). */
  #forgetOldWrites(): void {
    if (this.#lastWrite.size < 1000) return;
    const horizon = Date.now() - this.#options.minWriteIntervalMs;
    for (const [key, at] of this.#lastWrite) if (at < horizon) this.#lastWrite.delete(key);
  }

  async get(key: string): Promise<string | null> {
    try {
      return await this.#namespace.get(key);
    } catch (error) {
      throw kvFailure('get', key, error);
    }
  }

  async getJson<T>(key: string): Promise<T | undefined> {
    const text = await this.get(key);
    if (text === null) return undefined;
    try {
      return JSON.parse(text) as T;
    } catch (error) {
      throw kvFailure('parse', key, error);
    }
  }

  async delete(key: string): Promise<void> {
    try {
      await this.#namespace.delete(key);
      this.#lastWrite.delete(key);
    } catch (error) {
      throw kvFailure('delete', key, error);
    }
  }

  /** One list page (limit clamped to KV's 1,000). */
  async listPage(prefix: string, limit: number, cursor?: string): Promise<KvListResult> {
    try {
      const options: { prefix: string; limit: number; cursor?: string } = {
        prefix,
        limit: Math.max(1, Math.min(1000, limit)),
      };
      if (cursor !== undefined) options.cursor = cursor;
      return await this.#namespace.list(options);
    } catch (error) {
      throw kvFailure('list', prefix, error);
    }
  }

  /** Every key name under a prefix, following cursors. */
  async listAll(prefix: string): Promise<string[]> {
    const names: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.listPage(prefix, 1000, cursor);
      for (const key of page.keys) names.push(key.name);
      cursor = page.list_complete ? undefined : page.cursor;
    } while (cursor !== undefined);
    return names;
  }
}

/** 429s, 5xx and network errors are worth retrying; size and key errors (4xx) are not. */
function isRetryable(error: unknown): boolean {
  const text = messageOf(error);
  if (/\b(429|500|502|503|504)\b/.test(text) || /too many requests|rate limit|network|timed? ?out/i.test(text))
    return true;
  return !/\b4\d\d\b/.test(text);
}

/** A STORAGE_ERROR naming the KV operation and key, with the back-end's reason. */
export function kvFailure(operation: string, key: string, error: unknown): AgentError {
  const reason = messageOf(error);
  return storageError(
    error,
    `Workers KV ${operation} of '${key}' failed`,
    { backend: 'workers-kv', operation, key, reason },
    reason,
  );
}
