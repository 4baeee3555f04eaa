/**
 * JSON ↔ Lua conversion for one sandboxed VM (docs/spec.md#3-inline-lua): objects ↔ tables, arrays ↔ 1-based
 * sequences marked with the `json.array` metatable, `null` ↔ the `json.null` sentinel (a light
 * userdata: immutable, so no script can poison it), integers stay integers when they fit
 * fengari's 32-bit Lua integers. Lua → JSON drops the keys `__proto__`, `constructor` and
 * `prototype`, caps nesting depth, refuses cycles and non-JSON values (functions, threads,
 * userdata, NaN/infinity) with a `LuaConversionError` naming the value's type and path (shortened).
 * Lua → JSON decodes every string it emits afresh, so a string referenced many times costs many
 * times its size: `read` reports the bytes of every string and key to a `chargeBytes` callback,
 * before decoding them, which the caller charges to the call's string budget.
 */
import type { LuaState } from '#lua-vm';
import { lua, lauxlib, to_luastring } from '#lua-vm';
import { formatValuePath } from './error-text.js';

/** Deepest nesting converted in either direction. */
export const MAX_JSON_DEPTH = 100;
/** Most values pushed into Lua in one conversion. */
export const MAX_JSON_VALUES_IN = 1_000_000;
/**
 * Most values read out of Lua in one conversion. A table that holds the same subtable twice
 * counts it twice, so this also stops `t = {t, t}` repeated 60 times (2^60 values) quickly.
 */
export const MAX_JSON_VALUES_OUT = 250_000;

/** The bookkeeping of one conversion: tables and keys on the current path, values left. */
interface Conversion {
  /** Tables on the current path (Lua → JSON only). */
  seen: Set<object> | null;
  path: (string | number)[];
  remaining: number;
  /** Told the byte length of each string and string key read out of Lua, before it is decoded; throws to stop. */
  chargeBytes: ((bytes: number) => void) | null;
}

/** Options of `JsonBridge.read`. */
export interface ReadOptions {
  /** Called with the byte length of every string value and key emitted, before it is decoded; throw to stop the conversion. */
  chargeBytes?: (bytes: number) => void;
}

/** `$`, `$.key`, `$[0]`: where in the value a conversion failed (long paths and keys shortened). */
function formatPath(conversion: Conversion): string {
  return formatValuePath(conversion.path);
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const MAX_CACHED_LENGTH = 64;
const MAX_CACHED_STRINGS = 4096;
const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
const LUA_INTEGER_MIN = -2147483648;
const LUA_INTEGER_MAX = 2147483647;

/** A value that has no JSON (or Lua) form; compile-lua turns it into LUA_ERROR. */
export class LuaConversionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LuaConversionError';
  }
}

export class JsonBridge {
  /** The `json.null` sentinel, pushed as a light userdata. */
  readonly nullSentinel: object = Object.freeze({ json: 'null' });
  private readonly encoder = new TextEncoder();
  /** UTF-8 bytes of recently pushed short strings (bounded; fengari copies what it is given). */
  private readonly shortStrings = new Map<string, Uint8Array>();
  private readonly decoder = new TextDecoder('utf-8');
  /** How many values the last conversion visited (also after a failed one): its cost. */
  lastConversionSize = 0;
  /** Registry reference of the protected metatable that marks JSON arrays. */
  private arrayMetatableRef = 0;

  /** Creates the array metatable in `state`; call once per VM before any conversion. */
  install(state: LuaState): void {
    lua.lua_createtable(state, 0, 1);
    lua.lua_pushliteral(state, 'json.array');
    lua.lua_setfield(state, -2, '__metatable');
    this.arrayMetatableRef = lauxlib.luaL_ref(state, lua.LUA_REGISTRYINDEX);
  }

  pushString(state: LuaState, value: string): void {
    lua.lua_pushstring(state, this.bytesOf(value));
  }

  /** The UTF-8 bytes of `value` (lone surrogates as U+FFFD). Shared: never modify them. */
  bytesOf(value: string): Uint8Array {
    if (value.length > MAX_CACHED_LENGTH) return this.encoder.encode(value);
    // Short strings (keys, labels) repeat from call to call: keep their bytes. fengari's own
    // encoder is faster than TextEncoder for them, except for lone surrogates (→ U+FFFD).
    let bytes = this.shortStrings.get(value);
    if (bytes === undefined) {
      bytes = LONE_SURROGATE.test(value) ? this.encoder.encode(value) : to_luastring(value);
      if (this.shortStrings.size >= MAX_CACHED_STRINGS) this.shortStrings.clear();
      this.shortStrings.set(value, bytes);
    }
    return bytes;
  }

  /** Decodes a Lua string (bytes) as UTF-8, replacing invalid sequences with U+FFFD. */
  toText(bytes: Uint8Array): string {
    return this.decoder.decode(bytes);
  }

  /** Pushes the array metatable. */
  pushArrayMetatable(state: LuaState): void {
    lua.lua_rawgeti(state, lua.LUA_REGISTRYINDEX, this.arrayMetatableRef);
  }

  /** Pushes a JSON value as Lua; `undefined` becomes nil. */
  push(state: LuaState, value: unknown, name?: string): void {
    const conversion: Conversion = {
      seen: null,
      path: name === undefined ? [] : [name],
      remaining: MAX_JSON_VALUES_IN,
      chargeBytes: null,
    };
    try {
      this.pushValue(state, value, 0, conversion);
    } finally {
      this.lastConversionSize = MAX_JSON_VALUES_IN - conversion.remaining;
    }
  }

  private pushValue(state: LuaState, value: unknown, depth: number, conversion: Conversion): void {
    if (--conversion.remaining < 0)
      throw new LuaConversionError(`more than ${MAX_JSON_VALUES_IN} values to convert (at ${formatPath(conversion)})`);
    if (value === undefined) return lua.lua_pushnil(state);
    if (value === null) return lua.lua_pushlightuserdata(state, this.nullSentinel);
    switch (typeof value) {
      case 'boolean':
        return lua.lua_pushboolean(state, value);
      case 'number':
        if (Number.isInteger(value) && value >= LUA_INTEGER_MIN && value <= LUA_INTEGER_MAX && !Object.is(value, -0)) {
          return lua.lua_pushinteger(state, value);
        }
        return lua.lua_pushnumber(state, value);
      case 'string':
        return this.pushString(state, value);
      case 'object':
        break;
      default:
        throw new LuaConversionError(`cannot pass a JavaScript ${typeof value} to Lua (at ${formatPath(conversion)})`);
    }
    if (depth >= MAX_JSON_DEPTH)
      throw new LuaConversionError(`value nested deeper than ${MAX_JSON_DEPTH} levels (at ${formatPath(conversion)})`);
    if (!lua.lua_checkstack(state, 4))
      throw new LuaConversionError(`Lua stack exhausted (at ${formatPath(conversion)})`);
    if (Array.isArray(value)) {
      lua.lua_createtable(state, value.length, 0);
      for (let index = 0; index < value.length; index += 1) {
        const item: unknown = value[index];
        conversion.path.push(index);
        this.pushValue(state, item === undefined ? null : item, depth + 1, conversion);
        conversion.path.pop();
        lua.lua_rawseti(state, -2, index + 1);
      }
      this.pushArrayMetatable(state);
      lua.lua_setmetatable(state, -2);
      return;
    }
    const json: unknown = 'toJSON' in value && typeof value.toJSON === 'function' ? value.toJSON() : value;
    if (json !== value) return this.pushValue(state, json, depth, conversion);
    const keys = Object.keys(value);
    lua.lua_createtable(state, 0, keys.length);
    for (const key of keys) {
      const item = (value as Record<string, unknown>)[key];
      if (item === undefined) continue;
      this.pushString(state, key);
      conversion.path.push(key);
      this.pushValue(state, item, depth + 1, conversion);
      conversion.path.pop();
      lua.lua_rawset(state, -3);
    }
  }

  /** Converts the Lua value at `index` to JSON. nil (and none) become null. Runs no Lua code. */
  read(state: LuaState, index: number, options: ReadOptions = {}): unknown {
    const conversion: Conversion = {
      seen: new Set(),
      path: [],
      remaining: MAX_JSON_VALUES_OUT,
      chargeBytes: options.chargeBytes ?? null,
    };
    try {
      return this.readValue(state, index, 0, conversion);
    } finally {
      this.lastConversionSize = MAX_JSON_VALUES_OUT - conversion.remaining;
    }
  }

  private readValue(state: LuaState, index: number, depth: number, conversion: Conversion): unknown {
    if (--conversion.remaining < 0)
      throw new LuaConversionError(`more than ${MAX_JSON_VALUES_OUT} values to convert (at ${formatPath(conversion)})`);
    switch (lua.lua_type(state, index)) {
      case lua.LUA_TNONE:
      case lua.LUA_TNIL:
        return null;
      case lua.LUA_TBOOLEAN:
        return lua.lua_toboolean(state, index);
      case lua.LUA_TNUMBER: {
        if (lua.lua_isinteger(state, index)) return lua.lua_tointeger(state, index);
        const number = lua.lua_tonumber(state, index);
        if (!Number.isFinite(number))
          throw new LuaConversionError(`the number ${String(number)} has no JSON form (at ${formatPath(conversion)})`);
        return number;
      }
      case lua.LUA_TSTRING:
        return this.readString(state, index, conversion);
      case lua.LUA_TLIGHTUSERDATA:
        if (lua.lua_touserdata(state, index) === this.nullSentinel) return null;
        throw new LuaConversionError(`a userdata value has no JSON form (at ${formatPath(conversion)})`);
      case lua.LUA_TTABLE:
        return this.readTable(state, lua.lua_absindex(state, index), depth, conversion);
      case lua.LUA_TFUNCTION:
        throw new LuaConversionError(`a function value has no JSON form (at ${formatPath(conversion)})`);
      case lua.LUA_TTHREAD:
        throw new LuaConversionError(`a thread (coroutine) value has no JSON form (at ${formatPath(conversion)})`);
      default:
        throw new LuaConversionError(`a userdata value has no JSON form (at ${formatPath(conversion)})`);
    }
  }

  private readTable(state: LuaState, index: number, depth: number, conversion: Conversion): unknown {
    const seen = (conversion.seen ??= new Set());
    if (depth >= MAX_JSON_DEPTH)
      throw new LuaConversionError(`table nested deeper than ${MAX_JSON_DEPTH} levels (at ${formatPath(conversion)})`);
    const identity = lua.lua_topointer(state, index) as object;
    if (seen.has(identity)) throw new LuaConversionError(`table contains itself (at ${formatPath(conversion)})`);
    if (!lua.lua_checkstack(state, 4))
      throw new LuaConversionError(`Lua stack exhausted (at ${formatPath(conversion)})`);
    seen.add(identity);
    try {
      if (this.isMarkedArray(state, index)) {
        const length = lua.lua_rawlen(state, index);
        const array: unknown[] = new Array(length);
        for (let position = 1; position <= length; position += 1) {
          lua.lua_rawgeti(state, index, position);
          conversion.path.push(position - 1);
          array[position - 1] = this.readValue(state, -1, depth + 1, conversion);
          conversion.path.pop();
          lua.lua_pop(state, 1);
        }
        return array;
      }
      return this.readEntries(state, index, depth, conversion);
    } finally {
      seen.delete(identity);
    }
  }

  /** The string at `index`, charged before it is decoded. */
  private readString(state: LuaState, index: number, conversion: Conversion): string {
    const bytes = lua.lua_tostring(state, index) as Uint8Array;
    conversion.chargeBytes?.(bytes.length);
    return this.toText(bytes);
  }

  private isMarkedArray(state: LuaState, index: number): boolean {
    if (!lua.lua_getmetatable(state, index)) return false;
    this.pushArrayMetatable(state);
    const marked = lua.lua_rawequal(state, -1, -2);
    lua.lua_pop(state, 2);
    return marked;
  }

  /** Reads a table by `next`: a sequence 1..n becomes an array, anything else an object. */
  private readEntries(state: LuaState, index: number, depth: number, conversion: Conversion): unknown {
    const keys: (string | number)[] = [];
    const values: unknown[] = [];
    let sequence = true;
    lua.lua_pushnil(state);
    while (lua.lua_next(state, index)) {
      const key = this.readKey(state, conversion);
      if (typeof key !== 'number' || !Number.isInteger(key) || key < 1) sequence = false;
      keys.push(key);
      conversion.path.push(String(key));
      values.push(this.readValue(state, -1, depth + 1, conversion));
      conversion.path.pop();
      lua.lua_pop(state, 1);
    }
    if (keys.length === 0) return {};
    if (sequence) {
      const array: unknown[] = new Array(keys.length);
      let filled = 0;
      for (let position = 0; position < keys.length; position += 1) {
        const slot = (keys[position] as number) - 1;
        if (slot >= keys.length || array[slot] !== undefined) break;
        array[slot] = values[position];
        filled += 1;
      }
      if (filled === keys.length) return array;
    }
    const object: Record<string, unknown> = {};
    for (let position = 0; position < keys.length; position += 1) {
      const key = String(keys[position]);
      if (UNSAFE_KEYS.has(key)) continue;
      object[key] = values[position];
    }
    return object;
  }

  /** The key at -2 (during `lua_next`) as a string or number; other key types are refused. */
  private readKey(state: LuaState, conversion: Conversion): string | number {
    switch (lua.lua_type(state, -2)) {
      case lua.LUA_TSTRING:
        return this.readString(state, -2, conversion);
      case lua.LUA_TNUMBER:
        return lua.lua_tonumber(state, -2);
      default:
        throw new LuaConversionError(
          `a table key of type ${typeName(lua.lua_type(state, -2))} has no JSON form (at ${formatPath(conversion)})`,
        );
    }
  }
}

/** Lua's name for a type tag. */
export function typeName(type: number): string {
  return (
    ['nil', 'boolean', 'userdata', 'number', 'string', 'table', 'function', 'userdata', 'thread'][type] ?? 'no value'
  );
}
