/**
 * The slice of `Deno.Kv` the adapter uses, declared here so the adapter compiles without Deno's
 * types (the engine's type-check runs under Node). `Deno.openKv()` returns a value of this shape.
 */

export type DenoKvKeyPart = string | number | bigint | boolean | Uint8Array;
export type DenoKvKey = readonly DenoKvKeyPart[];

export interface DenoKvEntry<T> {
  key: DenoKvKey;
  value: T;
  versionstamp: string;
}

export interface DenoKvMaybeEntry<T> {
  key: DenoKvKey;
  value: T | null;
  versionstamp: string | null;
}

/** The async iterator `list` returns; `cursor` continues after the last entry yielded. */
export interface DenoKvListIterator<T> extends AsyncIterableIterator<DenoKvEntry<T>> {
  readonly cursor: string;
}

export interface DenoKvAtomic {
  check(...checks: Array<{ key: DenoKvKey; versionstamp: string | null }>): DenoKvAtomic;
  set(key: DenoKvKey, value: unknown, options?: { expireIn?: number }): DenoKvAtomic;
  delete(key: DenoKvKey): DenoKvAtomic;
  /** `versionstamp` is the commit's, when it succeeded. */
  commit(): Promise<{ ok: boolean; versionstamp?: string }>;
}

export interface DenoKvLike {
  get<T = unknown>(key: DenoKvKey): Promise<DenoKvMaybeEntry<T>>;
  set(key: DenoKvKey, value: unknown, options?: { expireIn?: number }): Promise<{ ok: boolean }>;
  delete(key: DenoKvKey): Promise<void>;
  /** `start` (inclusive) narrows a prefix listing to the keys from it on. */
  list<T = unknown>(
    selector: { prefix: DenoKvKey; start?: DenoKvKey },
    options?: { limit?: number; cursor?: string; reverse?: boolean },
  ): DenoKvListIterator<T>;
  atomic(): DenoKvAtomic;
}
