/**
 * The sanitiser's one walk, two consumers (src/events/sanitize-walk.ts): over many seeded values
 * (secrets inside strings and keys, credential keys, header pairs, prototype keys, escapes, lone
 * surrogates, long strings, cycles, nesting past the depth limit, toJSON, errors, non-JSON values)
 * the size the walk counts is the UTF-8 length of the JSON of the copy it builds.
 */
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/core/events.js';
import { createContext, type SanitizeOptions } from '../../src/events/copy-context.js';
import { sanitizeEventWithSize, sanitizeValue } from '../../src/events/redact.js';
import { sanitizedBytes } from '../../src/events/sanitized-size.js';
import { seededRandom } from '../support/seeded-random.js';

const SECRETS = ['sk-live-0123456789', 'tok"en\\x', 'pässwörd🚀', 'abcd'];
const ODD_KEYS = [
  '',
  'a',
  'Authorization',
  'x-api-key',
  'API_KEY',
  'Set-Cookie',
  'constructor',
  'prototype',
  'toJSON',
  'ké"y\n',
  '🚀',
  '\ud800',
  'abcd',
  'my-sk-live-0123456789-key',
  'node',
  'data',
  'custom_secret',
];
const PIECES = [
  'plain',
  ' ',
  'é',
  '🚀',
  '\ud800',
  '\udc00x',
  '"',
  '\\',
  '\n',
  '\u0001',
  '\u007f',
  'Bearer abcdefghijk',
  'Basic ',
  '…[truncated 12 bytes]',
  ...SECRETS,
];

function generator(seed: number) {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const text = (): string => {
    if (random() < 0.08) return pick(PIECES).repeat(1 + Math.floor(random() * 400));
    let result = '';
    const count = Math.floor(random() * 6);
    for (let index = 0; index < count; index++) result += pick(PIECES);
    return result;
  };
  const leaf = (): unknown =>
    pick<() => unknown>([
      text,
      text,
      () => Math.floor(random() * 1e6) - 5e5,
      () =>
        pick([0, -0, 1.5, -2.25e-7, 1e21, 123456789012, Number.NaN, Number.POSITIVE_INFINITY, Number.MAX_SAFE_INTEGER]),
      () => random() < 0.5,
      () => null,
      () => undefined,
      () => () => 1,
      () => Symbol('s'),
      () => BigInt(Math.floor(random() * 1e9)) * 1000n,
      () => new Date(Date.UTC(2026, 0, 1 + Math.floor(random() * 300))),
      () => new Error(`failed: ${text()}`),
      () => {
        const converted = { as: text() };
        return { toJSON: () => converted };
      },
      () => {
        const converted = text();
        return { toJSON: () => converted };
      },
      () => ({ toJSON: () => undefined }),
      () => ({
        toJSON: () => {
          throw new Error('no');
        },
      }),
      () => [pick(['authorization', 'X-Api-Key', 'cookie', 'accept']), text()],
    ])();
  // Each value has at most so many containers, so a value stays small enough to check many.
  let budget = 0;
  const value = (depth: number, ancestors: object[]): unknown => {
    const roll = random();
    if (depth > 9 || roll < 0.45 || budget-- <= 0) return leaf();
    if (roll < 0.5 && ancestors.length > 0) return pick(ancestors);
    if (roll < 0.7) {
      const list: unknown[] = [];
      const length = random() < 0.05 ? 20 + Math.floor(random() * 60) : Math.floor(random() * 5);
      for (let index = 0; index < length; index++) list.push(value(depth + 1, [...ancestors, list]));
      return list;
    }
    const record: Record<string, unknown> = {};
    const count = Math.floor(random() * 6);
    for (let index = 0; index < count; index++) {
      const key = random() < 0.5 ? pick(ODD_KEYS) : `k${Math.floor(random() * 20)}`;
      const field = value(depth + 1, [...ancestors, record]);
      if (random() < 0.05)
        Object.defineProperty(record, '__proto__', {
          value: field,
          enumerable: true,
          configurable: true,
          writable: true,
        });
      else record[key] = field;
    }
    return record;
  };
  const options = (): SanitizeOptions => ({
    secrets: random() < 0.8 ? SECRETS.filter(() => random() < 0.7) : undefined,
    redactKeys: random() < 0.3 ? ['custom_secret'] : undefined,
    maxDepth: random() < 0.5 ? 2 + Math.floor(random() * 8) : undefined,
  });
  const fresh = (): unknown => {
    budget = 60;
    return value(0, []);
  };
  return { value: fresh, options, random };
}

const bytesOf = (value: unknown): number => new TextEncoder().encode(JSON.stringify(value)).length;

describe('the sanitising walk: the size it counts is the size of the copy it builds', () => {
  it("for any value: sanitizedBytes equals the UTF-8 length of the copy's JSON, and both leave out the same values", () => {
    let measured = 0;
    for (let seed = 1; seed <= 1500; seed++) {
      const generate = generator(seed);
      const value = generate.value();
      const options = generate.options();
      const copy = sanitizeValue(value, options);
      const size = sanitizedBytes(value, 0, createContext(options));
      const json = JSON.stringify(copy);
      if (json === undefined) {
        expect(size, `seed ${seed}`).toBeUndefined();
        continue;
      }
      expect(size, `seed ${seed}`).toBe(bytesOf(copy));
      // A sharing copy is the same JSON, and no secret is left in it.
      expect(JSON.stringify(sanitizeValue(value, options, true)), `seed ${seed}`).toBe(json);
      for (const secret of options.secrets ?? []) expect(json.includes(secret), `seed ${seed}`).toBe(false);
      // Remembered sizes of large subtrees give the same count a second time.
      const context = createContext(options);
      context.sizeMemo = new WeakMap();
      expect(sanitizedBytes(value, 0, context), `seed ${seed}`).toBe(size);
      context.ancestors.length = 0;
      expect(sanitizedBytes(value, 0, context), `seed ${seed}`).toBe(size);
      measured++;
    }
    expect(measured).toBeGreaterThan(1000);
  });

  it('for any event under any cap: the reported size is exact, within the cap, and a summary names the size of the whole copy', () => {
    let summarised = 0;
    for (let seed = 1; seed <= 800; seed++) {
      const generate = generator(10_000 + seed);
      const data: Record<string, unknown> = { first: generate.value(), second: generate.value() };
      if (generate.random() < 0.3)
        data.rows = Array.from({ length: 400 }, (_, index) => ({
          index,
          ok: index % 3 === 0,
          nothing: null,
          note: generate.random() < 0.1 ? SECRETS[0] : 'x',
        }));
      const event = {
        type: 'log',
        run_id: 'run-1',
        seq: seed,
        ts: '2026-01-01T00:00:00.000Z',
        node: 'n',
        data,
      } as AgentEvent;
      const options = {
        ...generate.options(),
        maxEventBytes: generate.random() < 0.5 ? 1024 + Math.floor(generate.random() * 8192) : 256,
      };
      const exact = sanitizeEventWithSize(event, options);
      expect(exact.bytes, `seed ${seed}`).toBe(bytesOf(exact.event));
      expect(exact.bytes, `seed ${seed}`).toBeLessThanOrEqual(
        Math.max(
          options.maxEventBytes,
          bytesOf({ ...exact.event, data: { truncated: true, original_bytes: 0, preview: '' } }) + 1100,
        ),
      );
      const bound = sanitizeEventWithSize(event, options, false);
      expect(JSON.stringify(bound.event), `seed ${seed}`).toBe(JSON.stringify(exact.event));
      expect(bound.bytes, `seed ${seed}`).toBeGreaterThanOrEqual(exact.bytes);
      const whole = (sanitizeValue(event, options) as AgentEvent).data as Record<string, unknown>;
      const kept = exact.event.data as Record<string, unknown>;
      for (const key of Object.keys(kept)) {
        const field = kept[key] as { truncated?: boolean; original_bytes?: number } | undefined;
        if (
          key in whole &&
          field?.truncated === true &&
          (whole[key] as { truncated?: unknown } | null)?.truncated !== true
        ) {
          expect(field.original_bytes, `seed ${seed} field ${key}`).toBe(bytesOf(whole[key]));
          summarised++;
        }
      }
    }
    expect(summarised).toBeGreaterThan(20);
  });
});
