import { describe, expect, it } from 'vitest';
import { createSanitizer } from './outbound.js';
import { REDACTED } from './redact.js';

const KEY = 'sk-test-7f3a9c1e5b';

/** Feeds `pieces` through one stream redactor and returns what it emitted, piece by piece. */
function streamed(secrets: string[], pieces: string[]): string[] {
  const redactor = createSanitizer(secrets).stream();
  const out = pieces.map((piece) => redactor.push(piece));
  out.push(redactor.flush());
  return out;
}

/** Every way of cutting `text` into pieces at two points (plus single-character pieces). */
function cuttings(text: string): string[][] {
  const all: string[][] = [text.split('')];
  for (let first = 0; first <= text.length; first++) {
    for (let second = first; second <= text.length; second++)
      all.push([text.slice(0, first), text.slice(first, second), text.slice(second)]);
  }
  return all;
}

describe('createSanitizer: values and text', () => {
  it('valueShared gives what value gives, sharing every part that needs no change', () => {
    const sanitizer = createSanitizer([KEY]);
    const clean = {
      steps: [{ step: 1, thought: 'fine', tags: ['a', 'b'] }],
      total: 2,
      nested: { deep: { list: [1, 2.5, true, null] } },
    };
    expect(sanitizer.valueShared(clean)).toBe(clean);
    const looped: Record<string, unknown> = { name: 'loop' };
    looped.self = looped;
    class Point {
      constructor(readonly x: number) {}
    }
    const cases: Record<string, unknown>[] = [
      { keep: clean, leak: `uses ${KEY}`, after: [1, 2] },
      { keep: clean, list: [1, undefined, () => 2, Number.NaN, 'ok', `Bearer abcdefghijklmnop`] },
      { keep: clean, Authorization: 'Basic x', cookie: null, api_key: undefined, [`k-${KEY}`]: 1, last: 'z' },
      {
        keep: clean,
        point: new Point(3),
        when: new Date(Date.UTC(2026, 0, 1)),
        error: new Error(`failed ${KEY}`),
        big: 12n,
      },
      { keep: clean, looped, header: ['x-api-key', 'abc'], gone: undefined },
      JSON.parse('{"keep": {"a": 1}, "__proto__": {"polluted": true}, "z": 1}') as Record<string, unknown>,
    ];
    for (const value of cases) {
      const shared = sanitizer.valueShared(value);
      expect(shared).not.toBe(value);
      expect(shared).toStrictEqual(sanitizer.value(value));
      expect(JSON.stringify(shared)).not.toContain(KEY);
      // What needed nothing is the value's own, not a copy.
      expect((shared as { keep: unknown }).keep).toBe(value.keep);
    }
    // Only the path to a change is copied: the untouched branches stay shared.
    const mixed = { a: { x: [1, 2] }, b: { secret: `x ${KEY}` }, c: { y: 'fine' } };
    const shared = sanitizer.valueShared(mixed);
    expect(shared.a).toBe(mixed.a);
    expect(shared.c).toBe(mixed.c);
    expect(shared.b).not.toBe(mixed.b);
    expect(mixed.b.secret).toContain(KEY);
  });

  it('redacts a key copied anywhere in a value, also as a key name, and drops credential fields', () => {
    const outbound = createSanitizer([KEY, '', undefined, 'abc']);
    const copy = outbound.value({
      state: { copy: KEY, list: [`x${KEY}y`], [KEY]: 1, nested: { api_key: 'other' } },
      fine: 'abc',
    });
    expect(JSON.stringify(copy)).not.toContain(KEY);
    expect(copy.state.copy).toBe(REDACTED);
    expect(copy.state.nested.api_key).toBe(REDACTED);
    expect(Object.keys(copy.state)).toContain(REDACTED);
    expect(copy.fine).toBe('abc');
  });

  it('redacts serialised text, including the JSON-escaped form of a key with quotes or backslashes', () => {
    const odd = 'k"ey\\with\nbreaks';
    const outbound = createSanitizer([odd, KEY]);
    const body = JSON.stringify({ a: odd, b: `Bearer ${KEY}` });
    const clean = outbound.text(body);
    expect(clean).not.toContain(JSON.stringify(odd).slice(1, -1));
    expect(clean).not.toContain(KEY);
    expect(JSON.parse(clean)).toEqual({ a: REDACTED, b: `Bearer ${REDACTED}` });
  });
});

describe('createSanitizer: streams', () => {
  it('never lets a key split across pieces reassemble, however the text is cut', () => {
    const text = `before ${KEY} middle ${KEY}${KEY} after`;
    for (const pieces of cuttings(text)) {
      const joined = streamed([KEY], pieces).join('');
      expect(joined).not.toContain(KEY);
      expect(joined).toBe(`before ${REDACTED} middle ${REDACTED}${REDACTED} after`);
    }
  });

  it('keeps overlapping secrets whole on one side of every cut', () => {
    // Cutting "xyzw" before "zw" (a prefix of the second secret) would leave "xy" out and "zw…" later.
    const secrets = ['xyzw', 'zwq0'];
    for (const pieces of cuttings('..xyzwabc..zwq0..')) {
      const joined = streamed(secrets, pieces).join('');
      for (const secret of secrets) expect(joined).not.toContain(secret);
    }
  });

  it('holds a Bearer credential until its token ends', () => {
    for (const pieces of cuttings('auth: Bearer eyJhbGciOiJI.payload.sig done')) {
      const joined = streamed([], pieces).join('');
      expect(joined).toBe(`auth: Bearer ${REDACTED} done`);
    }
  });

  it('emits ordinary text at once and holds only a possible start of a key', () => {
    const redactor = createSanitizer([KEY]).stream();
    expect(redactor.push('Hello, world. ')).toBe('Hello, world. ');
    expect(redactor.push('the key is sk-te')).toBe('the key is ');
    expect(redactor.push('rrible')).toBe('sk-terrible');
    expect(redactor.push(' end')).toBe(' end');
    expect(redactor.flush()).toBe('');
  });

  it('a stream that ends in the middle of a key emits the fragment (it is not the key)', () => {
    expect(streamed([KEY], ['value sk-test-7f']).join('')).toBe('value sk-test-7f');
  });
});
