/**
 * Retry timing for model calls: exponential backoff with jitter, `Retry-After` (seconds or an HTTP
 * date) honoured but capped. Which errors are retried is decided by the
 * client (429, 5xx, timeouts, connection errors; never other 4xx or bad responses).
 */
import { exponentialDelay } from '../util/backoff.js';

export interface RetryTiming {
  /** Delay before the first retry (default 500 ms). */
  baseDelayMs: number;
  /** Upper bound of a computed backoff delay (default 8 s). */
  maxDelayMs: number;
  /** Upper bound of a server's `Retry-After` (default 10 s): a server cannot park a run for an hour. */
  retryAfterCapMs: number;
}

export const DEFAULT_RETRY_TIMING: RetryTiming = Object.freeze({
  baseDelayMs: 500,
  maxDelayMs: 8_000,
  retryAfterCapMs: 10_000,
});

/**
 * Parses a `Retry-After` header into milliseconds from `now`: delta-seconds (`"2"`, `"0.5"`) or an
 * HTTP date. Undefined when absent or unreadable; never negative.
 */
export function parseRetryAfter(header: string | null | undefined, now: number): number | undefined {
  if (header === null || header === undefined) return undefined;
  const text = header.trim();
  if (text === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  if (!/[A-Za-z]/.test(text)) return undefined; // an HTTP date names a day and month; "-1" is no date
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/**
 * The delay before retry number `retry` (1 for the first retry): the server's `Retry-After` when it
 * gave one (capped), else `base × 2^(retry-1)` capped at `maxDelayMs`, with "equal jitter" (half
 * fixed, half random) so many clients do not retry in lock-step.
 */
export function retryDelay(
  retry: number,
  retryAfterMs: number | undefined,
  timing: RetryTiming,
  random: () => number = Math.random,
): number {
  if (retryAfterMs !== undefined) return Math.min(retryAfterMs, timing.retryAfterCapMs);
  const exponential = exponentialDelay(retry, timing.baseDelayMs, timing.maxDelayMs);
  return Math.round(exponential / 2 + (exponential / 2) * random());
}

// Kept for callers that import it from here (src/graph); its home is src/util/abort.ts.
export { sleep } from '../util/abort.js';
