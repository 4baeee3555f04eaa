import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_TIMING, parseRetryAfter, retryDelay } from './retry.js';

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  it.each([
    ['2', 2000],
    ['0', 0],
    ['1.5', 1500],
    [' 3 ', 3000],
    ['Thu, 01 Jan 2026 00:00:10 GMT', 10_000],
    ['Wed, 31 Dec 2025 23:59:00 GMT', 0],
  ])('%j → %i ms', (header, expected) => expect(parseRetryAfter(header, now)).toBe(expected));
  it.each([null, undefined, '', 'soon', '-1'])('%j → undefined', (header) =>
    expect(parseRetryAfter(header, now)).toBeUndefined(),
  );
});

describe('retryDelay', () => {
  it('grows exponentially with equal jitter and a cap', () => {
    const timing = { ...DEFAULT_RETRY_TIMING, baseDelayMs: 100, maxDelayMs: 1000 };
    expect(retryDelay(1, undefined, timing, () => 0)).toBe(50);
    expect(retryDelay(1, undefined, timing, () => 1)).toBe(100);
    expect(retryDelay(3, undefined, timing, () => 1)).toBe(400);
    expect(retryDelay(10, undefined, timing, () => 1)).toBe(1000);
    expect(retryDelay(10, undefined, timing, () => 0)).toBe(500);
  });
  it('uses Retry-After when given, capped', () => {
    expect(retryDelay(1, 1234, DEFAULT_RETRY_TIMING)).toBe(1234);
    expect(retryDelay(1, 3_600_000, DEFAULT_RETRY_TIMING)).toBe(DEFAULT_RETRY_TIMING.retryAfterCapMs);
  });
});
