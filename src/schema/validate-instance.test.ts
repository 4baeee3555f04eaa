/**
 * validateInstance keeps the meaning of the library it replaces: on ordinary schemas and values
 * its verdict is compared with @cfworker/json-schema's own `validate` (which is still a
 * dependency, for `dereference`), draft by draft.
 */
import { validate as libraryValidate, type Schema } from '@cfworker/json-schema';
import { describe, expect, it } from 'vitest';
import { compileSchema } from './compile-schema.js';

const where = { node: 'check' };
const DRAFT_URIS: Record<string, string | undefined> = {
  '7': undefined,
  '2019-09': 'https://json-schema.org/draft/2019-09/schema',
  '2020-12': 'https://json-schema.org/draft/2020-12/schema',
  '4': 'http://json-schema.org/draft-04/schema#',
};

const cases: Array<[string, Record<string, unknown>, unknown[]]> = [
  ['type list', { type: ['string', 'null'] }, ['a', null, 1, {}, []]],
  ['integer', { type: 'integer' }, [1, 1.5, 1e3, '1']],
  ['numbers', { minimum: 1, maximum: 5, exclusiveMaximum: 5, multipleOf: 0.5 }, [1, 4.5, 5, 0, 1.25, 'x']],
  ['multipleOf 0.01', { multipleOf: 0.01 }, [19.99, 0.3, 1.005, 1e-9]],
  ['strings', { minLength: 2, maxLength: 3, pattern: '^[a-z]+$' }, ['ab', 'abcd', 'a', 'A1', '😀😀', 5]],
  ['const and enum', { enum: [1, 'a', { b: [1, 2] }, null], const: 'a' }, ['a', 1, { b: [1, 2] }, null, 'b']],
  ['enum objects', { enum: [{ a: 1, b: 2 }, [1, { c: 3 }]] }, [{ b: 2, a: 1 }, [1, { c: 3 }], [{ c: 3 }, 1], { a: 1 }]],
  [
    'required and properties',
    {
      type: 'object',
      required: ['a'],
      properties: { a: { type: 'string' }, b: { type: 'number' } },
      additionalProperties: false,
    },
    [{ a: 'x' }, { a: 1 }, {}, { a: 'x', c: 1 }, { a: 'x', b: 'y' }],
  ],
  [
    'patternProperties',
    {
      patternProperties: { '^x-': { type: 'integer' }, '\\d$': { minimum: 5 } },
      additionalProperties: { type: 'string' },
    },
    [{ 'x-a': 1, b: 's' }, { 'x-1': 3 }, { 'x-9': 9 }, { c: 1 }],
  ],
  [
    'property counts and names',
    { minProperties: 1, maxProperties: 2, propertyNames: { maxLength: 3 } },
    [{ a: 1 }, {}, { a: 1, b: 2, c: 3 }, { long: 1 }],
  ],
  [
    'dependencies',
    { dependencies: { a: ['b'], c: { required: ['d'] } } },
    [{ a: 1, b: 2 }, { a: 1 }, { c: 1 }, { c: 1, d: 2 }],
  ],
  [
    'dependentRequired/Schemas',
    { dependentRequired: { a: ['b'] }, dependentSchemas: { c: { required: ['d'] } } },
    [{ a: 1 }, { a: 1, b: 1 }, { c: 1 }, { c: 1, d: 1 }],
  ],
  [
    'arrays',
    { type: 'array', minItems: 1, maxItems: 3, items: { type: 'integer' }, uniqueItems: true },
    [[1], [], [1, 2, 3, 4], [1, 1], [1, 'a'], [{ a: 1 }, { a: 1 }]],
  ],
  [
    'unique objects',
    { uniqueItems: true },
    [
      [
        { a: 1, b: 2 },
        { b: 2, a: 1 },
      ],
      [
        [1, 2],
        [2, 1],
      ],
      [1, '1'],
      [0, false],
      [null, 'null'],
    ],
  ],
  [
    'tuple items',
    { items: [{ type: 'string' }, { type: 'number' }], additionalItems: false },
    [['a', 1], ['a', 'b'], ['a', 1, 2], ['a']],
  ],
  ['prefixItems', { prefixItems: [{ type: 'string' }], items: { type: 'number' } }, [['a', 1, 2], ['a', 'b'], [1]]],
  [
    'contains',
    { contains: { type: 'string' }, minContains: 2, maxContains: 3 },
    [['a', 'b'], ['a'], ['a', 'b', 'c', 'd'], [1, 2]],
  ],
  ['contains alone', { contains: { const: 5 } }, [[5], [1], []]],
  [
    'allOf/anyOf/oneOf/not',
    {
      allOf: [{ type: 'number' }],
      anyOf: [{ minimum: 10 }, { maximum: 0 }],
      oneOf: [{ multipleOf: 2 }, { multipleOf: 3 }],
      not: { const: 12 },
    },
    [10, 12, 15, -2, -6, 5, 'x'],
  ],
  ['if/then/else', { if: { type: 'string' }, then: { minLength: 2 }, else: { type: 'number' } }, ['ab', 'a', 1, null]],
  [
    '$ref to $defs',
    { $defs: { pos: { type: 'integer', minimum: 1 } }, type: 'array', items: { $ref: '#/$defs/pos' } },
    [[1, 2], [0], ['a']],
  ],
  [
    'definitions and recursion',
    {
      definitions: {
        node: { type: 'object', properties: { next: { $ref: '#/definitions/node' }, v: { type: 'number' } } },
      },
      $ref: '#/definitions/node',
    },
    [{ v: 1, next: { v: 2, next: {} } }, { next: { v: 'x' } }],
  ],
  ['$ref with siblings', { $defs: { s: { type: 'string' } }, $ref: '#/$defs/s', minLength: 3 }, ['abcd', 'ab', 1]],
  [
    'unevaluatedProperties',
    { properties: { a: true }, allOf: [{ properties: { b: true } }], unevaluatedProperties: false },
    [
      { a: 1, b: 2 },
      { a: 1, c: 3 },
    ],
  ],
  [
    'unevaluatedProperties through anyOf',
    { anyOf: [{ properties: { a: { type: 'string' } } }, { properties: { b: true } }], unevaluatedProperties: false },
    [{ a: 'x' }, { b: 1 }, { a: 1 }, { c: 1 }],
  ],
  ['unevaluatedItems', { prefixItems: [{ type: 'string' }], unevaluatedItems: false }, [['a'], ['a', 'b']]],
  [
    'formats',
    { type: 'array', items: { anyOf: [{ format: 'email' }, { format: 'date-time' }, { format: 'ipv4' }] } },
    [['a@b.co'], ['2026-11-23T10:00:00Z'], ['10.0.0.1'], ['nope'], ['2026-02-30T10:00:00Z'], ['256.1.1.1']],
  ],
  [
    'more formats',
    {
      type: 'array',
      items: { oneOf: [{ format: 'uuid' }, { format: 'date' }, { format: 'ipv6' }, { format: 'hostname' }] },
    },
    [
      ['123e4567-e89b-12d3-a456-426614174000'],
      ['2024-02-29'],
      ['2023-02-29'],
      ['::1'],
      ['fe80::1:2:3:4:5:6:7:8'],
      ['-bad.host'],
    ],
  ],
  ['boolean subschemas', { properties: { a: false, b: true }, items: false }, [{ b: 1 }, { a: 1 }, [], [1]]],
  ['draft-4 exclusive', { minimum: 1, exclusiveMinimum: true, maximum: 3, exclusiveMaximum: false }, [1, 2, 3, 4]],
];

describe('validateInstance agrees with @cfworker/json-schema on ordinary schemas', () => {
  for (const draft of ['7', '2019-09', '2020-12', '4'] as const) {
    it.each(cases)(`draft ${draft}: %s`, (_label, body, instances) => {
      if (draft !== '4' && 'exclusiveMinimum' in body && typeof body.exclusiveMinimum === 'boolean') return;
      const schema = DRAFT_URIS[draft] === undefined ? body : { $schema: DRAFT_URIS[draft], ...body };
      const ours = compileSchema(schema, { where });
      for (const instance of instances) {
        const theirs = libraryValidate(instance, structuredClone(schema) as Schema, draft, undefined, false).valid;
        expect([instance, ours.validate(instance).valid]).toEqual([instance, theirs]);
      }
    });
  }
});

describe('validateInstance reports leaf errors', () => {
  it('explains a failing anyOf with its branches, briefly', () => {
    const schema = compileSchema({ anyOf: [{ type: 'string' }, { type: 'object', required: ['id'] }] }, { where });
    const [error] = schema.validate({}).errors;
    expect(error!.keyword).toBe('anyOf');
    expect(error!.message).toContain('Instance type "object" is invalid');
    expect(error!.message).toContain('required property "id"');
  });

  it('names the pattern that did not match', () => {
    const schema = compileSchema({ properties: { code: { pattern: '^[A-Z]{3}$' } } }, { where });
    expect(schema.validate({ code: 'abc' }).errors).toEqual([
      expect.objectContaining({
        path: '/code',
        keyword: 'pattern',
        message: 'String does not match pattern ^[A-Z]{3}$.',
      }),
    ]);
  });
});
