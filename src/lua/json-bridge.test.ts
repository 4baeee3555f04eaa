// JSON ↔ Lua conversion (docs/spec.md#3-inline-lua) through compiled chunks and the json library.
import { describe, expect, it } from 'vitest';
import { luaError, runLua } from './lua-test-helpers.js';

const roundTrip = (value: unknown) => runLua('return state.value', { state: { value } });

describe('JSON ↔ Lua', () => {
  it('round-trips nested objects, arrays, null, booleans and unicode strings', () => {
    const value = {
      name: 'Zoë 😀 日本',
      list: [1, 'two', null, true, { deep: [[1], []] }],
      empty: {},
      nothing: null,
      yes: false,
    };
    expect(roundTrip(value)).toEqual(value);
  });

  it('keeps empty arrays as arrays and empty tables as objects', () => {
    expect(runLua('return { a = json.array(), o = {}, input = state.list }', { state: { list: [] } })).toEqual({
      a: [],
      o: {},
      input: [],
    });
    expect(runLua('local t = json.array({}) t[1] = 5 return t')).toEqual([5]);
  });

  it('keeps input arrays as arrays after they are emptied', () => {
    expect(runLua('table.remove(state.items) return state.items', { state: { items: [1] } })).toEqual([]);
  });

  it('maps json.null to null and nil entries away', () => {
    expect(runLua('return { a = json.null, b = nil, c = { 1, json.null, 3 } }')).toEqual({ a: null, c: [1, null, 3] });
    expect(runLua('return state.x == json.null', { state: { x: null } })).toBe(true);
    expect(runLua('return { tostring(json.null), type(json.null), getmetatable(json.null) }')).toEqual([
      'null',
      'userdata',
      false,
    ]);
  });

  it('keeps integers as integers and floats as floats', () => {
    expect(
      runLua('return { math.type(state.i), math.type(state.f), state.i // 1, 7 // 2, 7 / 2, 2^31 }', {
        state: { i: 3, f: 2.5 },
      }),
    ).toEqual(['integer', 'float', 3, 3, 3.5, 2147483648]);
    expect(roundTrip(1e300)).toBe(1e300);
    expect(roundTrip(-0.125)).toBe(-0.125);
  });

  it('turns tables with holes or mixed keys into objects with string keys', () => {
    expect(runLua('return { [1] = "a", [3] = "c" }')).toEqual({ 1: 'a', 3: 'c' });
    expect(runLua('return { "a", key = "b" }')).toEqual({ 1: 'a', key: 'b' });
    expect(runLua('return { [2.5] = "x" }')).toEqual({ '2.5': 'x' });
  });

  it('never writes __proto__, constructor or prototype into JavaScript objects', () => {
    const result = runLua(
      'return { __proto__ = { polluted = true }, constructor = 1, prototype = 2, safe = 3 }',
    ) as Record<string, unknown>;
    expect(result).toEqual({ safe: 3 });
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses keys with no JSON form and cycles and excessive depth', () => {
    expect(luaError('return { [true] = 1 }').message).toContain('boolean');
    expect(luaError('local t = {} t[1] = t return t').code).toBe('LUA_ERROR');
    expect(luaError('local t = {} for i = 1, 200 do t = { t } end return t').code).toBe('LUA_ERROR');
  });

  it('refuses input nested deeper than the cap', () => {
    let deep: unknown = 1;
    for (let level = 0; level < 150; level += 1) deep = [deep];
    expect(luaError('local t = state for i = 1, 150 do t = t[1] end return 1', { state: deep }).code).toBe('LUA_ERROR');
    expect(luaError('return json.encode(state)', { state: deep }).code).toBe('LUA_ERROR');
  });

  it('decodes invalid UTF-8 with replacement characters', () => {
    expect(runLua('return "a\\255b"')).toBe('a\uFFFDb');
  });
});

describe('the json library', () => {
  it('encodes and decodes', () => {
    expect(runLua('return json.encode({ a = { 1, 2 }, b = json.null, c = "x" })')).toBe('{"a":[1,2],"b":null,"c":"x"}');
    expect(
      runLua(
        'local v = json.decode(\'{"a":[1,{"b":null}],"e":[]}\') return { v.a[1], v.a[2].b == json.null, #v.e, v.e }',
      ),
    ).toEqual([1, true, 0, []]);
    expect(runLua('return json.decode(json.encode(state))', { state: { x: [1, 2.5, 'é'] } })).toEqual({
      x: [1, 2.5, 'é'],
    });
  });

  it('raises catchable Lua errors for invalid input', () => {
    expect(runLua('local ok, message = pcall(json.decode, "{nope") return { ok, type(message) }')).toEqual([
      false,
      'string',
    ]);
    expect(runLua('local ok = pcall(json.encode, { f = print }) return ok')).toBe(false);
    expect(luaError('return json.array(5)').code).toBe('LUA_ERROR');
    expect(luaError('return json.array(setmetatable({}, {}))').code).toBe('LUA_ERROR');
  });
});

describe('conversion limits', () => {
  it('converts large honest results', () => {
    const result = runLua('local t = {} for i = 1, 1e5 do t[i] = i end return t') as number[];
    expect(result.length).toBe(100_000);
    expect(result[99_999]).toBe(100_000);
  });

  it('refuses a result that shares subtables exponentially instead of expanding it', () => {
    expect(luaError('local t = {} for i = 1, 60 do t = { t, t } end return t').code).toBe('LUA_ERROR');
    expect(runLua('local t = {} for i = 1, 60 do t = { t, t } end return (pcall(json.encode, t))')).toBe(false);
  });
});
