/**
 * Types for `#lua-vm`: the generated, git-ignored `build/generated/fengari.js` (built by
 * build/targets/10-fengari.mjs from the raw `fengari` package; it has no types of its own). The
 * package.json `imports` entry points TypeScript here, so src/ type-checks without a build.
 * Only what src/lua uses is declared. Lua strings are byte arrays (`Uint8Array`).
 */
/** The budget hooks the patched VM calls (see src/lua/budget-meter.ts). */
export interface FengariBudgetHooks {
  armed: boolean;
  checkString(state: LuaState, length: number): void;
  countString(state: LuaState, length: number): void;
  countTableSlots(state: LuaState | null, count: number): void;
  countConversion(state: LuaState | null, bytes: number, outputSoFar?: number): void;
  resizeStack(state: LuaState, from: number, to: number): void;
  countPatternSteps(state: LuaState, count: number): void;
  chargeInstructions(state: LuaState, count: number): void;
  stackOverflow(state: LuaState): void;
}

/** fengari's global state; `teaBudget` is the field the build transform adds. */
export interface LuaGlobalState {
  teaBudget: FengariBudgetHooks | null;
}

/** A Lua thread (`lua_State`). Internal fields used by the instruction budget are exposed. */
export interface LuaState {
  readonly l_G: LuaGlobalState;
  hookcount: number;
}

export type LuaString = Uint8Array;
export type LuaCFunction = (state: LuaState) => number;
export type LuaHook = (state: LuaState, debug: unknown) => void;
export type LuaReader = (state: LuaState, data: unknown) => LuaString | null;

export const lua: {
  readonly LUA_OK: 0;
  readonly LUA_YIELD: 1;
  readonly LUA_ERRRUN: 2;
  readonly LUA_ERRSYNTAX: 3;
  readonly LUA_ERRMEM: 4;
  readonly LUA_ERRERR: 6;
  readonly LUA_MULTRET: -1;
  readonly LUA_REGISTRYINDEX: number;
  readonly LUA_RIDX_GLOBALS: number;
  readonly LUA_MASKCOUNT: number;
  readonly LUA_TNONE: -1;
  readonly LUA_TNIL: 0;
  readonly LUA_TBOOLEAN: 1;
  readonly LUA_TLIGHTUSERDATA: 2;
  readonly LUA_TNUMBER: 3;
  readonly LUA_TSTRING: 4;
  readonly LUA_TTABLE: 5;
  readonly LUA_TFUNCTION: 6;
  readonly LUA_TUSERDATA: 7;
  readonly LUA_TTHREAD: 8;
  lua_Debug: new () => { currentline: number; source: LuaString | null };
  lua_getstack(state: LuaState, level: number, debug: object): number;
  lua_getinfo(state: LuaState, what: string, debug: object): number;
  lua_absindex(state: LuaState, index: number): number;
  lua_checkstack(state: LuaState, count: number): boolean;
  lua_insert(state: LuaState, index: number): void;
  lua_topointer(state: LuaState, index: number): object | null;
  lua_createtable(state: LuaState, arraySize: number, hashSize: number): void;
  lua_getfield(state: LuaState, index: number, key: LuaString | string): number;
  lua_getmetatable(state: LuaState, index: number): boolean;
  lua_gettop(state: LuaState): number;
  lua_isinteger(state: LuaState, index: number): boolean;
  lua_load(
    state: LuaState,
    reader: LuaReader,
    data: unknown,
    chunkName: LuaString | string,
    mode: LuaString | string | null,
  ): number;
  lua_next(state: LuaState, index: number): boolean;
  lua_pcall(state: LuaState, argumentCount: number, resultCount: number, handlerIndex: number): number;
  lua_pop(state: LuaState, count: number): void;
  lua_pushboolean(state: LuaState, value: boolean): void;
  lua_pushcfunction(state: LuaState, fn: LuaCFunction): void;
  lua_pushinteger(state: LuaState, value: number): void;
  lua_pushlightuserdata(state: LuaState, value: object): void;
  lua_pushliteral(state: LuaState, value: string): void;
  lua_pushnil(state: LuaState): void;
  lua_pushnumber(state: LuaState, value: number): void;
  lua_pushstring(state: LuaState, value: LuaString): void;
  lua_pushvalue(state: LuaState, index: number): void;
  lua_rawequal(state: LuaState, index1: number, index2: number): boolean;
  lua_rawget(state: LuaState, index: number): number;
  lua_rawgeti(state: LuaState, index: number, key: number): number;
  lua_rawlen(state: LuaState, index: number): number;
  lua_rawset(state: LuaState, index: number): void;
  lua_rawseti(state: LuaState, index: number, key: number): void;
  lua_replace(state: LuaState, index: number): void;
  lua_setfield(state: LuaState, index: number, key: LuaString | string): void;
  lua_sethook(state: LuaState, hook: LuaHook | null, mask: number, count: number): void;
  lua_setmetatable(state: LuaState, index: number): void;
  lua_settop(state: LuaState, index: number): void;
  lua_setupvalue(state: LuaState, functionIndex: number, upvalue: number): LuaString | null;
  lua_toboolean(state: LuaState, index: number): boolean;
  lua_tocfunction(state: LuaState, index: number): LuaCFunction | null;
  lua_tointeger(state: LuaState, index: number): number;
  lua_tonumber(state: LuaState, index: number): number;
  lua_tostring(state: LuaState, index: number): LuaString | null;
  lua_touserdata(state: LuaState, index: number): unknown;
  lua_type(state: LuaState, index: number): number;
};

export const lauxlib: {
  luaL_newstate(): LuaState;
  luaL_ref(state: LuaState, tableIndex: number): number;
  luaL_requiref(state: LuaState, name: LuaString | string, open: LuaCFunction, global: number): void;
  luaL_checkstring(state: LuaState, argument: number): LuaString;
  luaL_checkany(state: LuaState, argument: number): void;
  luaL_checknumber(state: LuaState, argument: number): number;
  luaL_checkinteger(state: LuaState, argument: number): number;
  luaL_checktype(state: LuaState, argument: number, type: number): void;
  luaL_error(state: LuaState, message: LuaString | string): never;
  luaL_argerror(state: LuaState, argument: number, message: LuaString | string): never;
  luaL_tolstring(state: LuaState, index: number): LuaString;
  luaL_loadbufferx(
    state: LuaState,
    buffer: LuaString,
    size: number,
    chunkName: LuaString | string,
    mode: LuaString | string | null,
  ): number;
};

export const lualib: {
  luaopen_base: LuaCFunction;
  luaopen_coroutine: LuaCFunction;
  luaopen_math: LuaCFunction;
  luaopen_os: LuaCFunction;
  luaopen_string: LuaCFunction;
  luaopen_table: LuaCFunction;
  luaopen_utf8: LuaCFunction;
};

export function to_luastring(value: string, cache?: boolean): LuaString;
export function to_jsstring(value: LuaString, from?: number, to?: number, replacementCharacter?: boolean): string;

/** A VM value (fengari's TValue), opaque to src/lua. */
export interface VmValue {
  readonly type: number;
}

/** One entry of a fengari table (its traversal order is a linked list of them). */
export interface VmEntry {
  value: VmValue;
}

/** The part of a fengari table lazy tables use. */
export interface VmTable {
  lazy: VmLazyHooks | undefined;
  readonly strong: Map<string | number, VmEntry>;
}

/** What the patched `ltable.js` calls on a table's `lazy` field (src/lua/lazy-table.ts). */
export interface VmLazyHooks {
  fetch(table: VmTable, hash: string | number): VmEntry | undefined;
  write(table: VmTable, hash: string | number, isNil: boolean): void;
  length(table: VmTable): number;
  complete(table: VmTable): void;
}

/** Values and entries made without the API stack (build/targets/10-fengari.mjs). */
export const lazyTables: {
  boolean(value: boolean): VmValue;
  integer(value: number): VmValue;
  float(value: number): VmValue;
  /** A string of a copy of `bytes`; not charged by the VM's hook (the caller charges it). */
  string(state: LuaState, bytes: LuaString): VmValue;
  lightUserdata(value: object): VmValue;
  table(state: LuaState, lazy: VmLazyHooks, metatable: VmTable | null): VmValue;
  /** Pushes `value` on the stack of `state`. */
  push(state: LuaState, value: VmValue): void;
  /** Adds an entry (at the end of the traversal order) and returns it. */
  insert(table: VmTable, hash: string | number, key: VmValue, value: VmValue): VmEntry;
  moveToFront(table: VmTable, entries: VmEntry[]): void;
};
