/**
 * Issue 12 points 4 and 5, attacked: agent-supplied regexes, formats and validation work. Every
 * case ends with a correct answer or a typed error; load-time refusals and validations are held
 * to generous vitest timeouts (they take milliseconds; a backtracking engine took minutes).
 */
import { describe, expect, it } from 'vitest';
import { AgentError } from '../core/agent-error.js';
import { compileSchema } from './compile-schema.js';

const where = { node: 'check', field: 'input_schema' };
const LOAD_TIMEOUT = 3_000;
const RUN_TIMEOUT = 5_000;

function failure(run: () => unknown): AgentError {
  try {
    run();
  } catch (error) {
    expect(AgentError.isInstance(error)).toBe(true);
    return error as AgentError;
  }
  throw new Error('expected an AgentError');
}

describe('patterns run in linear time (schema pattern, patternProperties, propertyNames)', () => {
  const a300 = 'a'.repeat(300);
  const hostile: Array<[string, string, boolean]> = [
    ['^a*a*a*a*a*b$', a300, false],
    ['^.*,.*,.*,.*,.*,x$', ','.repeat(300), false],
    ['^(a+)+$', `${a300}!`, false],
    ['(a|aa)*b', a300, false],
    ['^(a|a?)+$', `${a300}!`, false],
    ['^(\\w+\\s?)*$', `${'word '.repeat(60)}!`, false],
    ['^(\\p{L}+\\s?)*$', `${'ä '.repeat(150)}1`, false],
    ['^(?:\\p{Lu}|\\p{L}|\\p{Ll})*!$', 'É'.repeat(300), false],
    ['^(?:[\\s\\S]*?,){6}x$', ','.repeat(300), false],
    ['^([a-z0-9]+[-._]?)+@example\\.com$', `${'a-'.repeat(150)}@example.org`, false],
    ['^(a+)+$', a300, true],
  ];

  it.each(hostile)(
    'pattern %s',
    (pattern, subject, matches) => {
      const schema = compileSchema({ type: 'object', properties: { text: { type: 'string', pattern } } }, { where });
      expect(schema.validate({ text: subject }).valid).toBe(matches);
      // 200 times longer: the right answer, or the typed work limit when the matcher steps run out.
      const expected = matches && new RegExp(pattern, 'u').test(subject + subject);
      try {
        expect(schema.validate({ text: subject.repeat(200) }).valid).toBe(expected);
      } catch (error) {
        expect(error).toMatchObject({ code: 'INPUT_TOO_LARGE', details: { limit: 'work' } });
      }
    },
    RUN_TIMEOUT,
  );

  it(
    'patternProperties keys and propertyNames come from the value: still linear',
    () => {
      const keys = compileSchema(
        {
          type: 'object',
          patternProperties: { '^(a+)+$': { type: 'integer' }, '^(\\w+\\s?)*$': { type: 'string' } },
          additionalProperties: false,
        },
        { where },
      );
      const hostileKey = `${'a'.repeat(5000)}!`;
      const result = keys.validate({ [hostileKey]: 1, [`${'word '.repeat(500)}!`]: 'x', aaa: 2 });
      expect(result.valid).toBe(false);
      // `aaa` matches both patterns: an integer is fine for the first, not for the second.
      expect(result.errors.map((error) => error.keyword)).toEqual([
        'additionalProperties',
        'additionalProperties',
        'type',
      ]);
      const names = compileSchema({ propertyNames: { pattern: '^(a|aa)*$' } }, { where });
      expect(names.validate({ [`${'a'.repeat(3000)}b`]: 1 }).valid).toBe(false);
      expect(names.validate({ [`${'a'.repeat(3000)}`]: 1 }).valid).toBe(true);
    },
    RUN_TIMEOUT,
  );

  it.each([
    ['lookahead', { pattern: '^(?=.*\\d)(a+)+$' }, /lookahead/],
    ['negative lookahead in patternProperties', { patternProperties: { '^(?!x-)(\\w+\\s?)*$': true } }, /lookahead/],
    ['lookbehind', { properties: { a: { pattern: '(?<=a)b' } } }, /lookbehind/],
    ['back-reference', { items: { pattern: '^(a+)\\1$' } }, /back-reference/],
    ['named back-reference', { pattern: '(?<x>a)\\k<x>' }, /back-reference/],
    ['huge repetition', { pattern: 'a{1000}'.repeat(40) }, /too large/],
    ['nested repetition counts', { pattern: '((a{1,10}){1,10}){1,100}' }, /too large/],
    [
      'many large patterns',
      {
        properties: Object.fromEntries(
          Array.from({ length: 40 }, (_, index) => [`p${index}`, { pattern: `x${index}(?:[a-z]{0,100}y){8}` }]),
        ),
      },
      /together are too large/,
    ],
  ])(
    'refuses %s at load with SCHEMA_INVALID naming the pattern',
    (_label, schema, reason) => {
      const error = failure(() => compileSchema(schema, { where }));
      expect(error.code).toBe('SCHEMA_INVALID');
      expect(error.message).toMatch(reason);
      expect(error.message).toMatch(/pattern/);
      expect(error.location.node).toBe('check');
    },
    LOAD_TIMEOUT,
  );
});

describe('formats never run a backtracking regex', () => {
  const long = (unit: string, times = 20_000): string => unit.repeat(times);
  const cases: Array<[string, string, boolean]> = [
    ['url', `http://${long('a', 300)}${long('-', 300)}`, false],
    ['url', `http://${long('a.', 5000)}com${long('/x', 1000)}`, false],
    ['url', `https://${long('1', 300)}.${long('1', 300)}`, false],
    ['url', 'https://example.com/path?q=1#top', true],
    ['email', `${long('a', 64)}@${long('a-', 20_000)}.com`, false],
    ['email', `"${long('\\\\', 20_000)}"@example.com`, false],
    ['email', 'someone.name+tag@example.co.uk', true],
    ['uri', `http://${long('%', 20_000)}`, false],
    ['uri', `urn:${long('a:', 3000)}`, true],
    ['uri-reference', `${long('//a@', 2000)}`, true],
    ['uri-template', `${long('{a', 3000)}`, false],
    ['date-time', `2026-11-23T${long('1', 20_000)}`, false],
    ['date-time', `${long('2026-11-23T', 1000)}`, false],
    ['date-time', '2016-12-31T23:59:60Z', true],
    ['hostname', long('a-', 10_000), false],
    ['ipv6', long('1:', 10_000), false],
    ['duration', `P${long('1Y', 10_000)}`, false],
    ['json-pointer', long('/~', 10_000), false],
  ];
  it('unknown formats are annotations: they pass and cost nothing, even on long strings', () => {
    const schema = compileSchema({ type: 'string', format: 'markdown' }, { where });
    expect(schema.validate('#'.repeat(900_000)).valid).toBe(true);
  });

  it.each(cases)(
    '%s on a hostile string',
    (format, text, valid) => {
      const schema = compileSchema({ type: 'string', format }, { where });
      expect(schema.validate(text).valid).toBe(valid);
    },
    RUN_TIMEOUT,
  );
});

describe('validation work stays within caps (typed errors or correct answers)', () => {
  it(
    'an anyOf tree under the expansion cap over 200 failing items: INPUT_TOO_LARGE (work)',
    () => {
      const defs: Record<string, unknown> = { d0: { type: 'string', minLength: 5 } };
      for (let level = 1; level <= 11; level += 1)
        defs[`d${level}`] = { anyOf: [{ $ref: `#/$defs/d${level - 1}` }, { $ref: `#/$defs/d${level - 1}` }] };
      const schema = compileSchema({ $defs: defs, type: 'array', items: { $ref: '#/$defs/d11' } }, { where });
      const error = failure(() => schema.validate(Array.from({ length: 200 }, () => 'x')));
      expect(error.code).toBe('INPUT_TOO_LARGE');
      expect(error.details).toMatchObject({ limit: 'work' });
      // One failing item is within the budget and gets a bounded explanation.
      const one = schema.validate(['x']);
      expect(one.valid).toBe(false);
      expect(one.errors).toHaveLength(1);
      expect(one.errors[0]!.message.length).toBeLessThanOrEqual(300);
    },
    RUN_TIMEOUT,
  );

  it(
    'a oneOf/not/if tree of the same shape is counted the same way',
    () => {
      // Every item is valid (so the error cap never stops the walk), and each costs 3^6 probes.
      const defs: Record<string, unknown> = { d0: { not: { type: 'number' } } };
      for (let level = 1; level <= 6; level += 1)
        defs[`d${level}`] = {
          oneOf: [
            { $ref: `#/$defs/d${level - 1}` },
            { if: { $ref: `#/$defs/d${level - 1}` }, then: false, else: { $ref: `#/$defs/d${level - 1}` } },
          ],
        };
      const schema = compileSchema({ $defs: defs, type: 'array', items: { $ref: '#/$defs/d6' } }, { where });
      expect(schema.validate(['x']).valid).toBe(true);
      expect(schema.validate([1]).valid).toBe(false);
      expect(failure(() => schema.validate(Array.from({ length: 2000 }, () => 'x'))).details).toMatchObject({
        limit: 'work',
      });
    },
    RUN_TIMEOUT,
  );

  it(
    'an enum of 19,000 values over 2,000 wrong items: answered by set look-up, errors capped',
    () => {
      const values = Array.from({ length: 19_000 }, (_, index) => `v${index}`);
      const schema = compileSchema({ type: 'array', items: { enum: values } }, { where });
      const result = schema.validate(Array.from({ length: 2000 }, (_, index) => `w${index}`));
      expect(result.valid).toBe(false);
      expect(result.errors).toHaveLength(51);
      expect(result.errors.at(-1)!.message).toMatch(/only the first 50/);
      expect(result.errors.every((error) => error.message.length <= 300)).toBe(true);
      expect(schema.validate(Array.from({ length: 2000 }, (_, index) => `v${index * 9}`)).valid).toBe(true);
    },
    RUN_TIMEOUT,
  );

  it(
    'an enum of objects (keys in any order) over many items',
    () => {
      const values = Array.from({ length: 3000 }, (_, index) => ({ id: index, tags: ['a', { deep: index }] }));
      const schema = compileSchema({ type: 'array', items: { enum: values } }, { where });
      expect(
        schema.validate(Array.from({ length: 3000 }, (_, index) => ({ tags: ['a', { deep: index }], id: index })))
          .valid,
      ).toBe(true);
      expect(schema.validate([{ id: 1, tags: ['a', { deep: 2 }] }]).valid).toBe(false);
    },
    RUN_TIMEOUT,
  );

  it(
    'uniqueItems over 90,000 items is hash-based',
    () => {
      const schema = compileSchema({ type: 'array', uniqueItems: true }, { where });
      const numbers = Array.from({ length: 90_000 }, (_, index) => index);
      expect(schema.validate(numbers).valid).toBe(true);
      const result = schema.validate([...numbers.slice(0, 89_999), 12_345]);
      expect(result.errors).toEqual([
        expect.objectContaining({ keyword: 'uniqueItems', message: 'Duplicate items at indexes 12345 and 89999.' }),
      ]);
      const objects = Array.from({ length: 20_000 }, (_, index) => ({ a: index, b: [index] }));
      expect(schema.validate(objects).valid).toBe(true);
      expect(schema.validate([...objects, { b: [7], a: 7 }]).valid).toBe(false);
    },
    RUN_TIMEOUT,
  );

  it.each([
    ['$ref chain of 4,000', (index: number) => ({ $ref: `#/$defs/c${index - 1}` })],
    ['allOf chain of 4,000', (index: number) => ({ allOf: [{ $ref: `#/$defs/c${index - 1}` }] })],
    ['anyOf chain of 4,000', (index: number) => ({ anyOf: [{ $ref: `#/$defs/c${index - 1}` }, { type: 'null' }] })],
    ['$ref/not chain of 4,000', (index: number) => ({ not: { not: { $ref: `#/$defs/c${index - 1}` } } })],
  ])(
    'a %s is refused at load (not a stack overflow at run time)',
    (_label, link) => {
      const defs: Record<string, unknown> = { c0: { type: 'string' } };
      for (let index = 1; index < 4000; index += 1) defs[`c${index}`] = link(index);
      const error = failure(() => compileSchema({ $defs: defs, $ref: '#/$defs/c3999' }, { where }));
      expect(error.code).toBe('SCHEMA_INVALID');
      expect(error.message).toMatch(/chain of more than 32 subschemas/);
    },
    LOAD_TIMEOUT,
  );

  it('a chain under the cap validates', () => {
    const defs: Record<string, unknown> = { c0: { type: 'string' } };
    for (let index = 1; index < 20; index += 1) defs[`c${index}`] = { $ref: `#/$defs/c${index - 1}` };
    const schema = compileSchema({ $defs: defs, $ref: '#/$defs/c19' }, { where });
    expect(schema.validate('x').valid).toBe(true);
    expect(schema.validate(1).valid).toBe(false);
  });

  it(
    'errors are capped in number and size',
    () => {
      const schema = compileSchema(
        { type: 'array', items: { type: 'object', required: ['x'.repeat(5000)] } },
        { where },
      );
      const result = schema.validate(Array.from({ length: 50_000 }, () => ({})));
      expect(result.errors).toHaveLength(51);
      expect(result.errors.every((error) => error.message.length <= 300 && error.path.length < 300)).toBe(true);
      // Long keys on a deep path: the pointer is clipped too.
      const deepSchema = compileSchema(
        { $defs: { node: { type: 'object', additionalProperties: { $ref: '#/$defs/node' } } }, $ref: '#/$defs/node' },
        { where },
      );
      let deep: unknown = 5;
      for (let level = 0; level < 60; level += 1) deep = { [`${'k'.repeat(1000)}${level}`]: deep };
      const [error] = deepSchema.validate(deep).errors;
      expect(error!.keyword).toBe('type');
      expect(error!.path.length).toBeLessThanOrEqual(1000);
    },
    RUN_TIMEOUT,
  );

  it("work and nesting caps are the host's to set, and say which limit was reached", () => {
    const schema = compileSchema(
      { type: 'array', items: { type: 'string', pattern: '^[a-z]+$' } },
      { where, limits: { maxValidationWork: 1000 } },
    );
    expect(schema.validate(['abc']).valid).toBe(true);
    const work = failure(() => schema.validate(Array.from({ length: 1000 }, () => 'abc')));
    expect(work).toMatchObject({ code: 'INPUT_TOO_LARGE', details: { limit: 'work' } });
    expect(failure(() => schema.validate(['a'.repeat(10_000)]))).toMatchObject({
      code: 'INPUT_TOO_LARGE',
      details: { limit: 'work', path: '/0' },
    });
    const tree = compileSchema(
      { type: 'object', properties: { child: { $ref: '#' } } },
      { where, limits: { maxValidationDepth: 10 } },
    );
    let deep: Record<string, unknown> = {};
    for (let level = 0; level < 20; level += 1) deep = { child: deep };
    expect(failure(() => tree.validate(deep))).toMatchObject({ code: 'INPUT_TOO_LARGE', details: { limit: 'depth' } });
  });

  it(
    'a pattern is charged by the matcher steps it takes',
    () => {
      const schema = compileSchema({ type: 'string', pattern: '(?:[a-z]{0,20}x){10}' }, { where });
      expect(failure(() => schema.validate('a'.repeat(1_000_000)))).toMatchObject({
        code: 'INPUT_TOO_LARGE',
        details: { limit: 'work' },
      });
      expect(schema.validate('ax'.repeat(10)).valid).toBe(true);
      // An anchored pattern gives up at the first character that cannot start a match: cheap.
      const anchored = compileSchema({ type: 'string', pattern: '^(?:[a-z]{0,20}x){10}$' }, { where });
      expect(anchored.validate('a'.repeat(1_000_000)).valid).toBe(false);
      const letters = compileSchema({ type: 'string', pattern: '^\\p{L}+$' }, { where });
      expect(letters.validate('é'.repeat(200_000)).valid).toBe(true);
    },
    RUN_TIMEOUT,
  );

  it(
    'coercion is bounded too: long digit strings and allOf trees',
    () => {
      const numbers = compileSchema({ type: 'array', items: { type: 'number' } }, { where });
      // `\d+\.?\d*` used to take 3 s on 20,000 digits and an 'x' (quadratic backtracking).
      const result = numbers.validate(
        [`${'1'.repeat(200_000)}x`, `${'1'.repeat(100_000)}.${'1'.repeat(100_000)}x`, '42'],
        { coerce: true },
      );
      expect(result.errors.map((error) => error.path)).toEqual(['/0', '/1']);
      const defs: Record<string, unknown> = { d0: { type: 'integer' } };
      for (let level = 1; level <= 11; level += 1)
        defs[`d${level}`] = { allOf: [{ $ref: `#/$defs/d${level - 1}` }, { $ref: `#/$defs/d${level - 1}` }] };
      const tree = compileSchema({ $defs: defs, type: 'array', items: { $ref: '#/$defs/d11' } }, { where });
      expect(tree.validate(['1'], { coerce: true }).valid).toBe(true);
      expect(
        failure(() =>
          tree.validate(
            Array.from({ length: 5000 }, () => '1'),
            { coerce: true },
          ),
        ),
      ).toMatchObject({ code: 'INPUT_TOO_LARGE', details: { limit: 'work' } });
    },
    RUN_TIMEOUT,
  );
});
