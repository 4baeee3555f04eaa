import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../core/events.js';
import {
  createEventMaker,
  createEventSanitizer,
  createRunEventCap,
  jsonPrefix,
  jsonStringBytes,
  REDACTED,
  sanitizeEvent,
  sanitizeEventWithSize,
  sanitizeValue,
  utf8Length,
} from './redact.js';

/** An event with any data: the sanitiser and the cap do not look at what the fields mean. */
function event(data: Record<string, unknown>, seq = 1, type: AgentEvent['type'] = 'log'): AgentEvent {
  return { type, run_id: 'run-1', seq, ts: '2026-01-01T00:00:00.000Z', node: 'n', data } as AgentEvent;
}

function dataOf(event: AgentEvent): Record<string, unknown> {
  return event.data;
}

function bytesOf(value: unknown): number {
  return new TextEncoder().encode(JSON.stringify(value)).length;
}

describe('sanitizeEvent: redaction', () => {
  it('redacts secret values anywhere in strings, keys and nesting', () => {
    const secret = 'sk-live-1234567890';
    const result = sanitizeEvent(
      event({ prompt: `use ${secret} now`, nested: [{ deep: `x${secret}${secret}` }], other: 'fine' }),
      { secrets: [secret] },
    );
    expect(JSON.stringify(result)).not.toContain(secret);
    expect(dataOf(result).prompt).toBe(`use ${REDACTED} now`);
    expect((dataOf(result).nested as Array<{ deep: string }>)[0]!.deep).toBe(`x${REDACTED}${REDACTED}`);
    expect(dataOf(result).other).toBe('fine');
  });

  it('redacts the longer of overlapping secrets whole and ignores very short ones', () => {
    const result = sanitizeEvent(event({ text: 'abcdefgh and abcd and ab' }), { secrets: ['abcd', 'abcdefgh', 'ab'] });
    expect(dataOf(result).text).toBe(`${REDACTED} and ${REDACTED} and ab`);
  });

  it('redacts credential headers and keys in any case, and header pairs', () => {
    const result = sanitizeEvent(
      event({
        headers: {
          Authorization: 'Bearer abc',
          'api-key': 'k1',
          'X-API-Key': 'k2',
          'content-type': 'application/json',
        },
        api_key: 'k3',
        apiKey: 'k4',
        config: { authorization: { scheme: 'basic' } },
        pairs: [
          ['authorization', 'Bearer zzz'],
          ['accept', 'text/plain'],
        ],
        custom: 'kept',
        password: 'p',
      }),
      { redactKeys: ['password'] },
    );
    const data = result.data as Record<string, any>;
    expect(data.headers).toEqual({
      Authorization: REDACTED,
      'api-key': REDACTED,
      'X-API-Key': REDACTED,
      'content-type': 'application/json',
    });
    expect([data.api_key, data.apiKey, data.config.authorization, data.password]).toEqual([
      REDACTED,
      REDACTED,
      REDACTED,
      REDACTED,
    ]);
    expect(data.pairs).toEqual([
      ['authorization', REDACTED],
      ['accept', 'text/plain'],
    ]);
    expect(data.custom).toBe('kept');
  });

  it('masks bearer credentials written in text', () => {
    const result = sanitizeEvent(event({ log: 'sent Authorization: Bearer eyJhbGciOi.abc.def to host' }));
    expect(dataOf(result).log).toBe(`sent Authorization: Bearer ${REDACTED} to host`);
  });

  it('masks the shortest credential text and keeps shorter look-alikes (the length shortcut is exact)', () => {
    const result = sanitizeEvent(
      event({ shortest: 'Basic abcdefgh', shorter: 'Basic abcdefg', lower: 'basic abcdefghij' }),
    );
    expect(dataOf(result)).toEqual({
      shortest: `Basic ${REDACTED}`,
      shorter: 'Basic abcdefg',
      lower: 'basic abcdefghij',
    });
  });

  it('sorts every key once: credentials redacted, prototype keys dropped, with or without extra key names', () => {
    const data = JSON.parse(
      '{"__proto__": 1, "constructor": 2, "prototype": 3, "api_key": "k", "a-p-i-k-e-y": "k", "token": "t", "type": "x", "keys": 1}',
    );
    for (const options of [{}, { redactKeys: ['token', 'a'] }]) {
      const first = dataOf(sanitizeEvent(event(data), options));
      const again = dataOf(sanitizeEvent(event(data), options));
      const expected: Record<string, unknown> = {
        api_key: REDACTED,
        'a-p-i-k-e-y': REDACTED,
        token: 't',
        type: 'x',
        keys: 1,
      };
      if ('redactKeys' in options) expected.token = REDACTED;
      expect(first).toEqual(expected);
      expect(again).toEqual(expected);
      expect(Object.keys(first)).toEqual(Object.keys(expected));
    }
  });
});

describe('sanitizeEvent: inert JSON', () => {
  it('drops prototype keys, converts non-JSON values, breaks cycles, does not touch the input', () => {
    const hostile = JSON.parse('{"__proto__": {"polluted": true}, "constructor": {"prototype": 1}, "ok": 1}');
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    class Thing {
      field = 'x';
      method(): void {}
    }
    const input = event({
      hostile,
      when: new Date(0),
      big: 12n,
      nan: Number.NaN,
      fn: () => 1,
      missing: undefined,
      list: [undefined, () => 1, Infinity],
      error: new TypeError('bad thing'),
      thing: new Thing(),
      cyclic,
      shared: [cyclic, cyclic],
    });
    const result = sanitizeEvent(input);
    const data = result.data as Record<string, any>;
    expect(Object.getPrototypeOf(data.hostile)).toBe(Object.prototype);
    expect(Object.keys(data.hostile)).toEqual(['ok']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(data.when).toBe('1970-01-01T00:00:00.000Z');
    expect(data.big).toBe('12');
    expect(data.nan).toBeNull();
    expect('fn' in data || 'missing' in data).toBe(false);
    expect(data.list).toEqual([null, null, null]);
    expect(data.error).toEqual({ name: 'TypeError', message: 'bad thing' });
    expect(Object.getPrototypeOf(data.thing)).toBe(Object.prototype);
    expect(data.thing).toEqual({ field: 'x' });
    expect(data.cyclic).toEqual({ name: 'loop', self: '[circular]' });
    expect(data.shared).toEqual([
      { name: 'loop', self: '[circular]' },
      { name: 'loop', self: '[circular]' },
    ]);
    expect(dataOf(input).when).toBeInstanceOf(Date);
    expect(JSON.parse(JSON.stringify(result))).toEqual(result);
  });

  it('caps nesting depth', () => {
    let deep: Record<string, unknown> = { leaf: true };
    for (let index = 0; index < 200; index++) deep = { next: deep };
    const text = JSON.stringify(sanitizeEvent(event({ deep }), { maxDepth: 10 }));
    expect(text).toContain('[depth limit]');
    expect(text).not.toContain('leaf');
  });

  it('keeps AgentError-like objects through their toJSON', () => {
    const error = Object.assign(new Error('x'), { toJSON: () => ({ code: 'LUA_ERROR', message: 'boom' }) });
    expect(sanitizeValue({ error })).toEqual({ error: { code: 'LUA_ERROR', message: 'boom' } });
  });
});

describe('sanitizeEvent: size cap', () => {
  it('leaves events under the cap whole and reports their size', () => {
    const input = event({ text: 'héllo' });
    const { event: result, bytes } = sanitizeEventWithSize(input);
    expect(result).toEqual(input);
    expect(bytes).toBe(bytesOf(input));
  });

  it('truncates large strings with a marker and keeps the event under the cap', () => {
    const big = 'é'.repeat(150_000);
    const input = event({ content: big, small: 'keep me', list: ['x'.repeat(80_000), 'short'] });
    const { event: result, bytes } = sanitizeEventWithSize(input);
    expect(bytes).toBe(bytesOf(result));
    expect(bytes).toBeLessThanOrEqual(64 * 1024);
    expect(bytes).toBeGreaterThan(60 * 1024);
    const data = result.data as Record<string, any>;
    expect(data.content).toMatch(/^é+…\[truncated \d+ bytes\]$/);
    expect(data.list[0]).toMatch(/^x+…\[truncated \d+ bytes\]$/);
    expect(data.small).toBe('keep me');
    expect(data.list[1]).toBe('short');
    const removed = Number(/truncated (\d+) bytes/.exec(data.content)![1]);
    expect(utf8Length(data.content.split('…[')[0]) + removed).toBe(utf8Length(big));
  });

  it('never splits a surrogate pair and respects a small custom cap', () => {
    const result = sanitizeEvent(event({ emoji: '🚀'.repeat(5000), quotes: '"\\'.repeat(3000) }), {
      maxEventBytes: 2000,
    });
    expect(bytesOf(result)).toBeLessThanOrEqual(2000);
    expect((dataOf(result).emoji as string).split('…')[0]).toMatch(/^(🚀)+$/u);
  });

  it('counts JSON escapes: control characters that grow sixfold still end under the cap', () => {
    const input = event({ control: '\u0001'.repeat(12_000), text: 'plain' });
    const result = sanitizeEvent(input);
    expect(bytesOf(result)).toBeLessThanOrEqual(64 * 1024);
    expect(dataOf(result).control as string).toContain('[truncated');
    expect(sanitizeEventWithSize(input).event).toEqual(result);
    const small = event({ control: '\u0001'.repeat(9_000) });
    expect(sanitizeEvent(small)).toEqual(small);
  });

  it('jsonStringBytes is the UTF-8 size of the JSON string form, escapes and lone surrogates included', () => {
    const units = ['a', '"', '\\', '\n', '\u0001', '\u007f', 'é', '€', '🚀', '\ud800', '\udc00', '\u2028', ' '];
    let seed = 7;
    for (let round = 0; round < 500; round++) {
      let text = '';
      for (let index = 0; index < 20; index++) {
        seed = (seed * 1103515245 + 12345) % 2147483648;
        text += units[seed % units.length];
      }
      expect(jsonStringBytes(text)).toBe(bytesOf(text) - 2);
    }
  });

  it('utf8Length and jsonStringBytes count long strings exactly (the regex fast path and the loop agree)', () => {
    const units = ['a', '"', '\\', '\n', '\u0001', '\u007f', 'é', '€', '🚀', '\ud800', '\udc00', ' '];
    let seed = 11;
    for (const length of [31, 32, 33, 64, 500, 5000]) {
      const ascii = 'x'.repeat(length);
      expect(utf8Length(ascii)).toBe(length);
      expect(jsonStringBytes(ascii)).toBe(length);
      for (const unit of units) {
        // One wide unit anywhere (start, middle, end) must leave the fast path.
        for (const at of [0, length >> 1, length - 1]) {
          const text = ascii.slice(0, at) + unit + ascii.slice(at + 1);
          expect(jsonStringBytes(text)).toBe(bytesOf(text) - 2);
          if (!/[\ud800-\udfff]/.test(unit)) expect(utf8Length(text)).toBe(new TextEncoder().encode(text).length);
        }
      }
      let mixed = '';
      for (let index = 0; index < length; index++) {
        seed = (seed * 1103515245 + 12345) % 2147483648;
        mixed += seed % 4 === 0 ? units[seed % units.length] : 'b';
      }
      expect(jsonStringBytes(mixed)).toBe(bytesOf(mixed) - 2);
    }
  });

  it('a large state is summarised in its field, naming its exact size; the small fields stay (a done keeps its status)', () => {
    const steps = Array.from({ length: 3000 }, (_, index) => ({ step: index, thought: `step ${index} é`, ok: true }));
    const input = event({ status: 'completed', stop_reason: 'completed', state: { steps } }, 9, 'done');
    const result = sanitizeEventWithSize(input);
    const data = dataOf(result.event);
    expect(data.status).toBe('completed');
    expect(data.stop_reason).toBe('completed');
    expect(data.state).toMatchObject({ truncated: true, original_bytes: bytesOf(sanitizeValue({ steps })) });
    expect(JSON.stringify(sanitizeValue({ steps })).startsWith((data.state as { preview: string }).preview)).toBe(true);
    expect(result.bytes).toBe(bytesOf(result.event));
    // The engine's maker gives the same.
    const made = createEventMaker(['done'])('done', 'run-1', 9, '2026-01-01T00:00:00.000Z', input.data, 'n');
    expect(made.event).toEqual(result.event);
    expect(made.bytes).toBe(result.bytes);
  });

  it('a state of long numbers (past the cap though its lower bound is not) is summarised in its field too', () => {
    const times = Array.from({ length: 6000 }, (_, index) => 1795841253.769 + index / 1000);
    const input = event({ status: 'failed', stop_reason: 'error', state: { times } }, 3, 'done');
    const { event: result, bytes } = sanitizeEventWithSize(input);
    expect(dataOf(result)).toMatchObject({
      status: 'failed',
      stop_reason: 'error',
      state: { truncated: true, original_bytes: bytesOf({ times }) },
    });
    expect(bytes).toBe(bytesOf(result));
  });

  it('fields each under the cap but too large together: the data is summarised whole, naming the size it had', () => {
    const half = () => Array.from({ length: 12_000 }, (_, index) => index % 10);
    const input = event({ first: half(), second: half(), third: half() });
    const result = sanitizeEventWithSize(input);
    expect(dataOf(result.event)).toMatchObject({ truncated: true, original_bytes: bytesOf(sanitizeValue(input)) });
    expect(result.bytes).toBeLessThanOrEqual(64 * 1024);
  });

  it('two large fields are summarised each, and the rest cut to the cap names the whole size', () => {
    const first = Array.from({ length: 40_000 }, (_, index) => index % 10);
    const second = first.map((value) => value + 1);
    const input = event({ first, second, note: 'small' });
    const result = sanitizeEventWithSize(input);
    const data = dataOf(result.event) as Record<string, { original_bytes: number }>;
    expect(data.first!.original_bytes).toBe(bytesOf(first));
    expect(data.second!.original_bytes).toBe(bytesOf(second));
    expect(data.note).toBe('small');
    expect(result.bytes).toBe(bytesOf(result.event));
  });

  it('a summary made from a copy stopped early is the one a whole copy gives: exact size, same preview, whole envelope', () => {
    // Every kind of value the copy converts, inside a skeleton far past the cap: the copy stops
    // early and the size is measured on the original, so the two must agree case by case.
    const secret = 'sk-secret-value-42';
    class Point {
      constructor(readonly x: number) {}
    }
    const looped: Record<string, unknown> = { name: 'loop' };
    looped.self = looped;
    let deep: Record<string, unknown> = { leaf: 'bottom' };
    for (let level = 0; level < 70; level++) deep = { level, deep };
    const tricky = {
      text: `a "quoted" \\ line\n with ${secret} and é 🚀 \ud800 and Bearer abcdefghijklmnop`,
      [`key-${secret}`]: 1,
      Authorization: 'Basic xyz',
      api_key: null,
      cookie: undefined,
      __proto__key: 'kept',
      numbers: [0, -0, 1.5, -2.25e-7, 1e21, 123456789012, Number.NaN, Number.POSITIVE_INFINITY],
      misc: [undefined, () => 1, Symbol('s'), 10n, true, false, null],
      header: ['x-api-key', 'abc'],
      date: new Date(Date.UTC(2026, 0, 2)),
      error: new Error(`failed with ${secret}`),
      throwing: {
        toJSON: () => {
          throw new Error('no');
        },
      },
      converted: { toJSON: () => ({ as: 'json' }) },
      undefinedJson: { toJSON: () => undefined },
      instance: new Point(3),
      looped,
      deep,
    };
    Object.defineProperty(tricky, '__proto__', { value: { polluted: true }, enumerable: true });
    const rows = Array.from({ length: 4000 }, (_, index) => ({ index, ok: index % 2 === 0, nothing: null }));
    for (const data of [
      { tricky, rows },
      { rows, tricky },
    ]) {
      const input = { ...event(data), sub_run: [{ agent: 'child', file: 'child.yaml' }] } as AgentEvent;
      const options = { secrets: [secret] };
      const whole = sanitizeValue(input, options) as AgentEvent;
      const wholeData = whole.data as Record<string, unknown>;
      const result = sanitizeEventWithSize(input, options);
      const kept = result.event.data as Record<string, unknown>;
      // `tricky` is small: copied as a whole copy has it; `rows` alone passes the cap: summarised.
      expect(kept.tricky).toEqual(wholeData.tricky);
      const summary = kept.rows as { truncated: boolean; original_bytes: number; preview: string };
      expect(summary.truncated).toBe(true);
      expect(summary.original_bytes).toBe(bytesOf(wholeData.rows));
      expect(jsonStringBytes(summary.preview)).toBeGreaterThan(1000);
      expect(JSON.stringify(wholeData.rows).startsWith(summary.preview)).toBe(true);
      expect(Object.keys(kept)).toEqual(Object.keys(wholeData));
      expect(Object.keys(result.event)).toEqual(['type', 'run_id', 'seq', 'ts', 'node', 'data', 'sub_run']);
      expect(result.event.sub_run).toEqual([{ agent: 'child', file: 'child.yaml' }]);
      expect(result.bytes).toBe(bytesOf(result.event));
      expect(JSON.stringify(result.event)).not.toContain(secret);
      // The engine's maker (data walked alone) gives the same.
      const made = createEventMaker(['log'], options)('log', 'run-1', 1, '2026-01-01T00:00:00.000Z', data, 'n');
      expect(made.event.data).toEqual(kept);
      expect(made.bytes).toBe(bytesOf(made.event));

      // The size of a whole summary is measured on the original too: every kind of value, exactly.
      const alone = { ...input, data: { payload: data } } as unknown as AgentEvent;
      const wholeSummary = sanitizeEventWithSize(
        { ...alone, data: { tricky, rows, more: rows.map((row) => ({ ...row })) } } as unknown as AgentEvent,
        options,
      );
      expect(dataOf(wholeSummary.event)).toMatchObject({ rows: { truncated: true }, more: { truncated: true } });
      const nested = sanitizeEventWithSize(alone, options);
      const nestedSummary = dataOf(nested.event).payload as { original_bytes: number };
      expect(nestedSummary.original_bytes).toBe(
        bytesOf(((sanitizeValue(alone, options) as AgentEvent).data as Record<string, unknown>).payload),
      );
    }
  });

  it('jsonPrefix starts exactly like JSON.stringify, for inert values of every shape', () => {
    const values: unknown[] = [
      { a: [1, -0, 1e21, 0.5, true, null, 'x"\\\n🚀\ud800'], b: {}, c: [], d: { e: { f: 'g' } } },
      ['é', { k: 1 }, [[[]]]],
      'plain',
      42,
      Array.from({ length: 300 }, (_, index) => ({ index, text: `item ${index}`.repeat(index % 7) })),
    ];
    for (const value of values) {
      const full = JSON.stringify(value);
      for (const length of [0, 1, 5, 17, 100, 1026, 100_000]) {
        const prefix = jsonPrefix(value, length);
        expect(full.startsWith(prefix)).toBe(true);
        expect(prefix.length).toBeGreaterThanOrEqual(Math.min(length, full.length));
      }
    }
  });

  it('a capped event reports its exact size (the trace cap counts it)', () => {
    const strings = Object.fromEntries(
      Array.from({ length: 40 }, (_, index) => [`s${index}`, `é"\u0001🚀\ud800 `.repeat(200 + index * 37)]),
    );
    const result = sanitizeEventWithSize(event(strings));
    expect((result.event.data as Record<string, unknown>).s39 as string).toContain('[truncated');
    expect(result.bytes).toBe(bytesOf(result.event));
    expect(result.bytes).toBeLessThanOrEqual(64 * 1024);
  });

  it('summarises a field whose size is not in its strings', () => {
    const result = sanitizeEvent(event({ numbers: Array.from({ length: 40_000 }, (_, index) => index) }));
    expect(bytesOf(result)).toBeLessThanOrEqual(64 * 1024);
    const numbers = dataOf(result).numbers as { truncated: boolean; original_bytes: number; preview: string };
    expect(numbers.truncated).toBe(true);
    expect(numbers.original_bytes).toBeGreaterThan(64 * 1024);
    expect(numbers.preview.startsWith('[0,1,2,3')).toBe(true);
    expect(result.run_id).toBe('run-1');
  });
});

describe('createRunEventCap', () => {
  it('keeps events up to the count cap, then one log notice, then only error and done', () => {
    const cap = createRunEventCap({ maxEvents: 3 });
    const kept = [1, 2, 3, 4, 5].map((seq) => cap.admit(event({}, seq)));
    const error = cap.admit(event({ code: 'X' }, 6, 'error'));
    const more = cap.admit(event({}, 7));
    const done = cap.admit(event({}, 8, 'done'));
    expect(kept.slice(0, 3).map((item) => item?.seq)).toEqual([1, 2, 3]);
    expect(kept[3]).toMatchObject({ type: 'log', seq: 4, node: 'n', data: { truncated: true, dropped_from_seq: 4 } });
    expect(kept[4]).toBeUndefined();
    expect(more).toBeUndefined();
    expect([error?.type, done?.type]).toEqual(['error', 'done']);
    expect(cap.truncated).toBe(true);
  });

  it('caps by bytes too', () => {
    const cap = createRunEventCap({ maxBytes: 1000 });
    const results = Array.from({ length: 10 }, (_, index) => cap.admit(event({ text: 'x'.repeat(300) }, index + 1)));
    const stored = results.filter((item) => item !== undefined);
    expect(stored.filter((item) => item.type === 'log' && item.data.source === 'trace')).toHaveLength(1);
    expect(stored.length).toBeLessThan(5);
  });
});

describe('createEventMaker', () => {
  const TYPES = ['node_start', 'node_end', 'log', 'tool_start'];

  function both(
    options: Parameters<typeof createEventMaker>[1],
    type: string,
    runId: string,
    ts: string,
    data: unknown,
    node: string | undefined,
  ) {
    const made = createEventMaker(TYPES, options)(type as AgentEvent['type'], runId, 7, ts, data, node);
    const event = { type, run_id: runId, seq: 7, ts, data } as AgentEvent;
    if (node !== undefined) event.node = node;
    const general = createEventSanitizer(options)(event, false);
    return { made, general };
  }

  it('gives what the general sanitiser gives for the assembled event: fields, key order and size bound', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    const datas: unknown[] = [
      {},
      { update: { candidate: 3 }, duration_ms: 0 },
      {
        headers: { Authorization: 'Bearer abcdefghijkl' },
        api_key: 'sk-secret-value',
        list: [1, 'Basic abcdefghij', null],
      },
      JSON.parse('{"__proto__": 1, "ok": "sk-secret-value inside"}'),
      { cyclic, when: new Date(0), nan: Number.NaN, big: 5n },
      { toJSON: () => 'not an object' },
      'text',
      null,
      undefined,
      [1, 2],
      { long: 'x'.repeat(70_000) },
    ];
    const optionsList = [
      {},
      { secrets: ['sk-secret-value'] },
      { secrets: ['node'] },
      { secrets: ['2026'] },
      { redactKeys: ['candidate'] },
      { maxDepth: 1 },
    ];
    for (const options of optionsList) {
      for (const data of datas) {
        for (const node of [undefined, 'generate', 'Bearer abcdefghijkl', 'has sk-secret-value']) {
          for (const [type, runId] of [
            ['node_end', 'run-1'],
            ['custom_type', 'run sk-secret-value'],
            ['log', 'Basic abcdefghijklmn'],
          ]) {
            const { made, general } = both(options, type!, runId!, '2026-01-01T00:00:00.000Z', data, node);
            expect(made.event).toEqual(general.event);
            expect(JSON.stringify(made.event)).toBe(JSON.stringify(general.event));
            expect(made.bytes).toBe(general.bytes);
          }
        }
      }
    }
  });

  it('does not share data objects with the caller', () => {
    const data = { update: { list: [1] } };
    const { made } = both({}, 'node_end', 'run-1', '2026-01-01T00:00:00.000Z', data, 'n');
    data.update.list.push(2);
    expect(made.event.data).toEqual({ update: { list: [1] } });
  });
});
