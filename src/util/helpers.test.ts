import { describe, expect, it } from 'vitest';
import { AgentError } from '../core/agent-error.js';
import { abortError, sleep, throwIfAborted } from './abort.js';
import { exponentialDelay } from './backoff.js';
import { FORBIDDEN_KEYS, isForbiddenKey } from './forbidden-keys.js';
import { messageOf } from './message-of.js';
import { isPlainObject } from './plain-object.js';
import { parseJsonSafely } from './untrusted-json.js';

describe('the shared helpers', () => {
  it('isForbiddenKey names exactly the three prototype keys', () => {
    expect([...FORBIDDEN_KEYS].sort()).toEqual(['__proto__', 'constructor', 'prototype']);
    expect(['__proto__', 'constructor', 'prototype'].every(isForbiddenKey)).toBe(true);
    expect(['proto', 'Constructor', '__proto', 'toString', ''].some(isForbiddenKey)).toBe(false);
  });

  it('parseJsonSafely drops prototype keys however they are written, at any depth', () => {
    const texts = [
      '{"__proto__": {"polluted": 1}, "a": 1}',
      '{"a": {"constructor": {"prototype": 2}, "b": [ {"prototype": 3} ]}}',
      '{"\\u005f_proto__": {"polluted": 1}, "a": 1}',
      '{"a": [{"\\u0063onstructor": 1, "c": 2}]}',
      '{"pro\\u0074otype": 1, "ok": true}',
    ];
    for (const text of texts) {
      const parsed = parseJsonSafely(text);
      expect(parsed.ok).toBe(true);
      const seen = JSON.stringify(parsed.ok ? parsed.value : null);
      expect(seen).not.toMatch(/__proto__|constructor|prototype/);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    }
    // Text with no such key is taken as parsed.
    expect(parseJsonSafely('{"a": [1, {"b": "proto type"}]}')).toEqual({
      ok: true,
      value: { a: [1, { b: 'proto type' }] },
    });
  });

  it('isPlainObject is true for objects only, not arrays or null', () => {
    expect([{}, { a: 1 }, Object.create(null), JSON.parse('{"__proto__": 1}')].every(isPlainObject)).toBe(true);
    expect([[], null, undefined, 'x', 1, true].some(isPlainObject)).toBe(false);
  });

  it('messageOf gives an error message without the stack, strings and primitives as text, else the fallback', () => {
    expect(messageOf(new TypeError('fetch failed'))).toBe('fetch failed');
    expect(messageOf('plain text')).toBe('plain text');
    expect(messageOf(42)).toBe('42');
    expect(messageOf({ message: 'not an Error' })).toBe('unknown error');
    expect(messageOf(undefined, 'invalid JSON')).toBe('invalid JSON');
  });

  it('exponentialDelay doubles from the base and stops at the cap', () => {
    expect([1, 2, 3, 4, 5].map((retry) => exponentialDelay(retry, 500, 4_000))).toEqual([
      500, 1_000, 2_000, 4_000, 4_000,
    ]);
    expect(exponentialDelay(0, 100)).toBe(100);
    expect(exponentialDelay(11, 1)).toBe(1_024);
  });

  it('an abort is CANCELLED unless its reason is an AgentError, which is kept', () => {
    expect(abortError(AbortSignal.abort()).code).toBe('CANCELLED');
    const budget = new AgentError('BUDGET_EXCEEDED', 'max_duration reached');
    expect(abortError(AbortSignal.abort(budget))).toBe(budget);
    expect(() => throwIfAborted(AbortSignal.abort(budget))).toThrow(budget);
    expect(() => throwIfAborted(new AbortController().signal)).not.toThrow();
    expect(() => throwIfAborted(undefined)).not.toThrow();
  });

  it('sleep resolves after the wait, and rejects at once when its signal aborts', async () => {
    await expect(sleep(1)).resolves.toBeUndefined();
    await expect(sleep(10, AbortSignal.abort())).rejects.toMatchObject({ code: 'CANCELLED' });
    const controller = new AbortController();
    const waiting = sleep(60_000, controller.signal);
    controller.abort(new AgentError('BUDGET_EXCEEDED', 'max_duration reached'));
    await expect(waiting).rejects.toMatchObject({ code: 'BUDGET_EXCEEDED' });
  });
});
