/**
 * Text values over Deno KV, whose values are limited to 64 KiB: a text longer than `maxBytes` is
 * stored as numbered pieces under `[...key, i]` with a small header at `key`, all in one atomic
 * commit. Every failure becomes STORAGE_ERROR naming the operation.
 */
import { messageOf, splitUtf8, storageError, type AgentError } from '../../src/host-storage.js';
import type { DenoKvAtomic, DenoKvKey, DenoKvLike } from './deno-kv-like.js';

/** What is stored at the main key: the whole text, or how many pieces follow. */
type Stored = { text: string } | { pieces: number };

/** Splits text into pieces of at most `maxBytes` UTF-8 bytes, never inside a character. */
export const splitText = splitUtf8;

/** Adds the writes of one text value to an atomic operation. */
export function setText(
  atomic: DenoKvAtomic,
  key: DenoKvKey,
  text: string,
  maxBytes: number,
  expireIn: number | undefined,
): DenoKvAtomic {
  const options = expireIn === undefined ? undefined : { expireIn };
  const pieces = splitText(text, maxBytes);
  if (pieces.length === 1) return atomic.set(key, { text } satisfies Stored, options);
  atomic.set(key, { pieces: pieces.length } satisfies Stored, options);
  pieces.forEach((piece, index) => {
    atomic.set([...key, index], piece, options);
  });
  return atomic;
}

/** Reads a text value written by `setText`, or undefined. */
export async function getText(kv: DenoKvLike, key: DenoKvKey): Promise<string | undefined> {
  const entry = await guard('get', () => kv.get<Stored>(key));
  const stored = entry.value;
  if (stored === null) return undefined;
  if ('text' in stored) return stored.text;
  const pieces = await Promise.all(
    Array.from({ length: stored.pieces }, (_, index) => guard('get', () => kv.get<string>([...key, index]))),
  );
  if (pieces.some((piece) => piece.value === null)) return undefined;
  return pieces.map((piece) => piece.value).join('');
}

/** Parses a JSON text value, or undefined. */
export async function getJson<T>(kv: DenoKvLike, key: DenoKvKey): Promise<T | undefined> {
  const text = await getText(kv, key);
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as T;
  } catch (error) {
    throw kvFailure('parse', error);
  }
}

/** Commits an atomic operation; a failed check is the caller's business, a throw is STORAGE_ERROR. */
export async function commit(atomic: DenoKvAtomic): Promise<boolean> {
  return (await commitStamped(atomic)) !== undefined;
}

/** Commits an atomic operation: its versionstamp, or undefined when a check failed. */
export async function commitStamped(atomic: DenoKvAtomic): Promise<string | undefined> {
  const result = await guard('commit', () => retryWhileLocked(() => atomic.commit()));
  return result.ok ? (result.versionstamp ?? '') : undefined;
}

/** Attempts of a commit that found the database locked (about 1.5 s in all). */
const LOCKED_ATTEMPTS = 12;

/**
 * Runs a Deno KV write again while it fails with SQLite's "database is locked": two Deno
 * processes sharing one local KV file race for SQLite's write lock, and the loser's commit is
 * refused whole (nothing written), so trying it again is safe. Measured with 2 × 10 concurrent
 * claims on one file: without this, up to all 10 of one process failed that way instead of
 * losing the check. Deno Deploy's KV never answers so.
 */
export async function retryWhileLocked<T>(write: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      if (attempt >= LOCKED_ATTEMPTS || !/database is locked/i.test(messageOf(error))) throw error;
      await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20 * attempt));
    }
  }
}

/** Every key under a prefix (following the list to its end). */
export async function listKeys(
  kv: DenoKvLike,
  prefix: DenoKvKey,
  options: { reverse?: boolean } = {},
): Promise<DenoKvKey[]> {
  return guard('list', async () => {
    const keys: DenoKvKey[] = [];
    for await (const entry of kv.list({ prefix }, options)) keys.push(entry.key);
    return keys;
  });
}

/** Runs a Deno KV call, turning any failure into STORAGE_ERROR. */
export async function guard<T>(operation: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw kvFailure(operation, error);
  }
}

function kvFailure(operation: string, error: unknown): AgentError {
  const reason = messageOf(error);
  return storageError(error, `Deno KV ${operation} failed`, { backend: 'deno-kv', operation, reason }, reason);
}
