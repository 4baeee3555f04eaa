import { describe, expect, it } from 'vitest';
import { AgentError } from '../core/agent-error.js';
import { compileSchema } from './compile-schema.js';
import { scoreFromErrors } from './score-from-errors.js';
import { schemaSuggestions } from './schema-suggestions.js';

const where = { node: 'check', field: 'schema' };

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    expect(AgentError.isInstance(error)).toBe(true);
    return (error as AgentError).code;
  }
  return undefined;
}

const person = {
  type: 'object',
  required: ['name', 'age'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 3 },
    age: { type: 'integer', minimum: 0 },
    email: { type: 'string', format: 'email' },
    tags: { type: 'array', items: { type: 'string' } },
    address: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

describe('compileSchema: validation', () => {
  const compiled = compileSchema(person, { where });

  it('accepts a valid instance', () => {
    expect(compiled.validate({ name: 'Ada', age: 36 })).toEqual({ valid: true, errors: [] });
  });

  it('collects all leaf errors with JSON pointer and dotted paths (no parent errors)', () => {
    const result = compiled.validate({ name: 'Al', email: 'nope', tags: ['a', 2], address: {}, extra: 1 });
    expect(result.valid).toBe(false);
    const byPath = result.errors.map((error) => [error.path, error.dotted_path, error.keyword]);
    expect(byPath).toEqual(
      expect.arrayContaining([
        ['', '', 'required'],
        ['/name', 'name', 'minLength'],
        ['/email', 'email', 'format'],
        ['/tags/1', 'tags[1]', 'type'],
        ['/address', 'address', 'required'],
        ['/extra', 'extra', 'additionalProperties'],
      ]),
    );
    expect(result.errors.some((error) => /subschema had errors|does not match schema/.test(error.message))).toBe(false);
    expect(result.errors.length).toBe(6);
  });

  it('escapes pointer tokens and keeps dotted keys readable', () => {
    const schema = compileSchema(
      { type: 'object', properties: { 'a/b': { type: 'string' }, 'x y': { type: 'number' } } },
      { where },
    );
    const result = compileSchema(schema.schema, { where }).validate({ 'a/b': 1, 'x y': 'z' });
    expect(result.errors.map((error) => error.path).sort()).toEqual(['/a~1b', '/x y']);
    expect(result.errors.map((error) => error.dotted_path).sort()).toEqual(['["a/b"]', '["x y"]']);
  });

  it('coerces strings for validation only', () => {
    const schema = compileSchema(
      {
        type: 'object',
        properties: {
          n: { type: 'integer' },
          ok: { type: 'boolean' },
          f: { type: 'number' },
          list: { type: 'array', items: { type: 'integer' } },
        },
      },
      { where },
    );
    const instance = { n: '42', ok: 'true', f: '4.5', list: ['1', '2'] };
    expect(schema.validate(instance).valid).toBe(false);
    expect(schema.validate(instance, { coerce: true })).toEqual({ valid: true, errors: [] });
    expect(instance.n).toBe('42');
    expect(schema.validate({ n: 'not a number' }, { coerce: true }).valid).toBe(false);
    expect(schema.validate({ ok: 'banana' }, { coerce: true }).valid).toBe(false);
  });

  it('uses draft-07 by default and later drafts when $schema says so', () => {
    // In draft-07 a $ref ignores its siblings; in 2020-12 it does not.
    const body = { $defs: { s: { type: 'string' } }, $ref: '#/$defs/s', minLength: 5 };
    expect(compileSchema(body, { where }).validate('abc').valid).toBe(true);
    expect(
      compileSchema({ ...body, $schema: 'https://json-schema.org/draft/2020-12/schema' }, { where }).validate('abc')
        .valid,
    ).toBe(false);
  });

  it('resolves $ref to registered schemas by name, #/schemas/name, or $id, with no network', () => {
    const registry = {
      address: {
        type: 'object',
        required: ['city'],
        properties: { city: { type: 'string' } },
        $defs: { zip: { type: 'string', pattern: '^\\d{5}$' } },
      },
      remote: { $id: 'https://example.com/remote.json', type: 'number' },
    };
    const schema = compileSchema(
      {
        type: 'object',
        properties: {
          home: { $ref: 'address' },
          work: { $ref: '#/schemas/address' },
          zip: { $ref: 'address#/$defs/zip' },
          n: { $ref: 'https://example.com/remote.json' },
        },
      },
      { where, registry },
    );
    const result = schema.validate({ home: {}, work: { city: 1 }, zip: 'x', n: 'y' });
    expect(result.errors.map((error) => error.path).sort()).toEqual(['/home', '/n', '/work/city', '/zip']);
    expect(schema.validate({ home: { city: 'A' }, zip: '12345', n: 3 }).valid).toBe(true);
  });

  it('leaves $ref keys inside const/enum data alone', () => {
    const schema = compileSchema({ const: { $ref: 'item' } }, { where, registry: { item: { type: 'string' } } });
    expect(schema.validate({ $ref: 'item' }).valid).toBe(true);
    expect(schema.validate('x').valid).toBe(false);
  });

  it('treats an instance with undefined members like JSON', () => {
    expect(compiled.validate({ name: 'Ada', age: 3, email: undefined }).valid).toBe(true);
  });
});

describe('compileSchema: untrusted schemas', () => {
  it.each([
    ['lookahead pattern', { type: 'string', pattern: '^(?=a)a+$' }],
    ['back-reference pattern', { properties: { x: { pattern: '(a)\\1' } } }],
    ['invalid regex', { pattern: '[a-' }],
    ['lookbehind patternProperties key', { patternProperties: { '(?<!x)y': { type: 'string' } } }],
    ['non-string pattern', { pattern: 5 }],
    ['unresolved local $ref', { $ref: '#/definitions/missing' }],
    ['remote $ref', { $ref: 'https://example.com/schema.json' }],
    ['$ref to itself', { $ref: '#' }],
    [
      '$ref cycle through $defs',
      { $defs: { a: { $ref: '#/$defs/b' }, b: { allOf: [{ $ref: '#/$defs/a' }] } }, $ref: '#/$defs/a' },
    ],
    ['unknown type', { type: 'strnig' }],
    ['enum not a list', { enum: 5 }],
    ['multipleOf zero', { multipleOf: 0 }],
    ['too deep', JSON.parse('{"not":'.repeat(80) + '{}' + '}'.repeat(80))],
    ['too large', { enum: Array.from({ length: 30_000 }, (_, index) => `value-${index}`) }],
    ['not an object', [1, 2]],
  ])('refuses %s with SCHEMA_INVALID', (_label, schema) => {
    expect(codeOf(() => compileSchema(schema, { where }))).toBe('SCHEMA_INVALID');
  });

  it('names the node and field as fields, the place in the message', () => {
    try {
      compileSchema({ properties: { code: { pattern: '^(?!a)b$' } } }, { where });
      expect.unreachable();
    } catch (error) {
      expect((error as AgentError).location.node).toBe('check');
      expect((error as AgentError).message).toContain('#/properties/code');
    }
  });

  it('refuses exponential $ref expansion', () => {
    const defs: Record<string, unknown> = { d0: { type: 'string' } };
    for (let level = 1; level <= 20; level += 1)
      defs[`d${level}`] = { allOf: [{ $ref: `#/$defs/d${level - 1}` }, { $ref: `#/$defs/d${level - 1}` }] };
    expect(codeOf(() => compileSchema({ $defs: defs, $ref: '#/$defs/d20' }, { where }))).toBe('SCHEMA_INVALID');
  });

  it('accepts recursion that consumes instance depth', () => {
    const tree = { type: 'object', properties: { children: { type: 'array', items: { $ref: '#' } } } };
    const schema = compileSchema(tree, { where });
    expect(schema.validate({ children: [{ children: [] }] }).valid).toBe(true);
    expect(schema.validate({ children: [{ children: 3 }] }).errors[0]!.dotted_path).toBe('children[0].children');
  });

  it('does not modify the schema it was given, nor let __proto__ keys change prototypes', () => {
    const source = JSON.parse(
      '{"type":"object","properties":{"__proto__":{"type":"string"}},"$defs":{"a":{"type":"number"}}}',
    );
    const before = JSON.stringify(source);
    const schema = compileSchema(source, { where });
    expect(JSON.stringify(source)).toBe(before);
    expect(schema.validate(JSON.parse('{"__proto__": 5}')).valid).toBe(false);
    expect(({} as Record<string, unknown>).type).toBeUndefined();
  });

  it('caps instance depth and size before validating (INPUT_TOO_LARGE)', () => {
    const schema = compileSchema({}, { where });
    let deep: unknown = 1;
    for (let level = 0; level < 100; level += 1) deep = [deep];
    expect(codeOf(() => schema.validate(deep))).toBe('INPUT_TOO_LARGE');
    expect(codeOf(() => schema.validate('x'.repeat(2 * 1024 * 1024)))).toBe('INPUT_TOO_LARGE');
    const small = compileSchema({}, { where, limits: { maxInstanceNodes: 10 } });
    expect(codeOf(() => small.validate(Array.from({ length: 20 }, () => 1)))).toBe('INPUT_TOO_LARGE');
    try {
      small.validate({ list: [1, 2, 3], 'a/b': { deep: [1, 2, 3, 4, 5] } });
      expect.unreachable();
    } catch (error) {
      expect((error as AgentError).details).toMatchObject({ limit: 'nodes', path: '/a~1b/deep/3' });
    }
  });

  it('accepts boolean schemas', () => {
    expect(compileSchema(true, { where }).validate(1).valid).toBe(true);
    expect(compileSchema(false, { where }).validate(1).valid).toBe(false);
  });

  it('compiled schemas are independent (no shared state between compiles)', () => {
    const registry = { item: { type: 'string' } };
    const first = compileSchema({ $ref: 'item' }, { where, registry });
    const second = compileSchema({ type: 'array', items: { $ref: 'item' } }, { where, registry });
    expect(first.validate('a').valid).toBe(true);
    expect(second.validate(['a', 1]).errors.map((error) => error.path)).toEqual(['/1']);
    expect(first.validate(1).valid).toBe(false);
  });
});

describe('score and suggestions', () => {
  it('scores max(0, 1 - 0.2 n)', () => {
    expect([0, 1, 2, 3, 5, 9].map(scoreFromErrors)).toEqual([1, 0.8, 0.6, 0.4, 0, 0]);
  });

  it('suggests like TEA', () => {
    const compiled = compileSchema(person, { where });
    const suggestions = schemaSuggestions(compiled.validate({ name: 5, age: 1, address: {} }).errors);
    expect(suggestions).toContain('Fix type at path: name');
    expect(suggestions).toContain('Add missing required field at path: address');
  });
});
