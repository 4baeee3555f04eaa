import { describe, expect, it } from 'vitest';
import { Environment } from '@huggingface/jinja';
import {
  LazyRecordMap,
  createEnvironment,
  VALUE_PROBES,
  copyData,
  makeArray,
  makeBoolean,
  makeFloat,
  makeFunction,
  makeInteger,
  makeNull,
  makeObject,
  makeString,
  makeUndefined,
  toNativeValue,
  toRuntimeValue,
} from './jinja-runtime.js';

/** The library's own conversion, i.e. values made with `new`. */
const libraryValue = (value: unknown) => new Environment().set('probe', value);

describe('runtime values made without the constructor', () => {
  const made = [
    makeInteger(1),
    makeFloat(1.5),
    makeString(''),
    makeBoolean(true),
    makeNull(),
    makeUndefined(),
    makeArray([]),
    makeObject(new Map()),
    makeFunction(() => makeNull()),
  ];

  it.each(VALUE_PROBES.map((probe, index) => [index, probe]))(
    'probe %i has the same class, type and fields as `new`',
    (index, probe) => {
      const reference = libraryValue(probe);
      const value = made[index as number]!;
      expect(Object.getPrototypeOf(value)).toBe(Object.getPrototypeOf(reference));
      expect(value.type).toBe(reference.type);
      // Same own fields, apart from the lazily created `_builtins` cache.
      const fields = (object: object) =>
        Object.keys(object)
          .filter((key) => key !== '_builtins')
          .sort();
      expect(fields(value)).toEqual(fields(reference));
    },
  );

  it('behave like library values (builtins, truthiness, printing)', () => {
    const text = makeString('ab');
    expect(text.toString()).toBe('ab');
    expect(text.__bool__().value).toBe(true);
    expect((text.builtins.get('upper')!.value as unknown as (args: unknown[]) => { value: string })([]).value).toBe(
      'AB',
    );
    expect(makeArray([makeInteger(1), makeString('x')]).toString()).toBe('[1, "x"]');
    expect(makeArray([]).__bool__().value).toBe(false);
    expect(makeFloat(2).toString()).toBe('2.0');
  });
});

describe('render environments made without the constructor', () => {
  it('have the fields of a constructed Environment', () => {
    const globals = new Environment();
    const made = createEnvironment(globals, new Map());
    const reference = new Environment(globals);
    expect(Object.getPrototypeOf(made)).toBe(Environment.prototype);
    expect(Object.keys(made).sort()).toEqual(Object.keys(reference).sort());
    expect(made.tests).toBe(reference.tests);
    expect(made.lookupVariable('namespace').type).toBe('FunctionValue');
  });
});

describe('lazy conversion', () => {
  it('converts a key on first read and keeps key order when filled', () => {
    const map = new LazyRecordMap({ a: 1, b: { c: 2 }, d: 'x' });
    expect(map.get('d')!.value).toBe('x');
    expect([...map.keys()]).toEqual(['a', 'b', 'd']);
    expect(map.size).toBe(3);
  });

  it('never exposes blocked or inherited keys', () => {
    const source = JSON.parse('{"__proto__": 1, "constructor": 2, "ok": 3}') as Record<string, unknown>;
    const map = new LazyRecordMap(source);
    expect(map.has('__proto__')).toBe(false);
    expect(map.get('constructor')).toBeUndefined();
    expect(map.get('toString')).toBeUndefined();
    expect([...map.keys()]).toEqual(['ok']);
  });

  it('round-trips JSON data into fresh copies', () => {
    const data = { a: [1, { b: null }], c: 'x', d: true, e: 1.5 };
    const back = toNativeValue(toRuntimeValue(data));
    expect(back).toEqual(data);
    expect(back).not.toBe(data);
    expect(copyData(data)).toEqual(data);
  });

  it('refuses absurd nesting as a template error', () => {
    let deep: unknown = 1;
    for (let index = 0; index < 500; index++) deep = [deep];
    expect(() => toNativeValue(toRuntimeValue(deep))).toThrow(expect.objectContaining({ code: 'TEMPLATE_ERROR' }));
  });
});
