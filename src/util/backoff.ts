/**
 * Exponential backoff: `baseMs × 2^(retry − 1)` for retry 1, 2, 3…, capped at `maxMs`. Callers add
 * their own jitter (the model client spreads half the delay, the KV writer adds up to a quarter).
 * @example exponentialDelay(3, 500, 8_000) // 2000
 */
export function exponentialDelay(retry: number, baseMs: number, maxMs = Number.POSITIVE_INFINITY): number {
  return Math.min(maxMs, baseMs * 2 ** Math.max(0, retry - 1));
}
