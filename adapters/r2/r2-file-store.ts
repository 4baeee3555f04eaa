/**
 * The Workers file seam: a FileStore (src/core/file-store.ts) over an R2 bucket binding (`FILES`
 * in wrangler.toml; Miniflare emulates it). Paths arrive as normal rooted paths (`a/b.txt`) and
 * become keys under an optional prefix, so there is nothing to escape: R2 keys are flat strings
 * and no folder or link exists. Reads fetch at most `maxBytes + 1` bytes (a range request for a
 * larger object). Declares the slice of the binding it uses, so it compiles without Workers types.
 */
import { storageError, type FileStore } from '../../src/host-storage.js';

export interface R2ObjectBodyLike {
  readonly size: number;
  arrayBuffer(): Promise<ArrayBuffer>;
}

export interface R2BucketLike {
  head(key: string): Promise<{ readonly size: number } | null>;
  get(key: string, options?: { range?: { offset: number; length: number } }): Promise<R2ObjectBodyLike | null>;
  put(key: string, value: Uint8Array | ArrayBuffer | string): Promise<unknown>;
}

export interface R2FileStoreOptions {
  /** Key prefix of every file (`files/`); default none. */
  prefix?: string;
  /** The binding's name, for messages (default FILES). */
  name?: string;
}

export function createR2FileStore(bucket: R2BucketLike, options: R2FileStoreOptions = {}): FileStore {
  const prefix = options.prefix ?? '';
  const description = `R2 bucket ${options.name ?? 'FILES'}`;
  const failure = (operation: string, file: string, error: unknown) =>
    storageError(error, `cannot ${operation} '${file}' in ${description}`, { path: file });
  return {
    description,
    async read(file, maxBytes) {
      try {
        const head = await bucket.head(prefix + file);
        if (head === null) return undefined;
        const body = await bucket.get(
          prefix + file,
          head.size > maxBytes ? { range: { offset: 0, length: maxBytes + 1 } } : {},
        );
        if (body === null) return undefined;
        return new Uint8Array(await body.arrayBuffer()).subarray(0, maxBytes + 1);
      } catch (error) {
        throw failure('read', file, error);
      }
    },
    async write(file, bytes) {
      try {
        await bucket.put(prefix + file, bytes);
      } catch (error) {
        throw failure('write', file, error);
      }
    },
  };
}
