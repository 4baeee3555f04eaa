/**
 * The slice of Cloudflare's `KVNamespace` binding the adapter uses. Declared here so the adapter
 * compiles without Cloudflare's platform types; a real binding, Miniflare's namespace, or a test
 * wrapper all satisfy it.
 */

/** One key of a `list` page. */
export interface KvListKey {
  name: string;
  expiration?: number;
  metadata?: unknown;
}

/** One `list` page: at most 1,000 keys, and a cursor while `list_complete` is false. */
export interface KvListResult {
  keys: KvListKey[];
  list_complete: boolean;
  cursor?: string;
}

export interface KvPutOptions {
  /** Seconds until the key expires; Workers KV refuses values under 60. */
  expirationTtl?: number;
  metadata?: unknown;
}

export interface KVNamespaceLike {
  get(key: string): Promise<string | null>;
  put(key: string, value: string, options?: KvPutOptions): Promise<void>;
  delete(key: string): Promise<void>;
  list(options?: { prefix?: string; limit?: number; cursor?: string }): Promise<KvListResult>;
}
