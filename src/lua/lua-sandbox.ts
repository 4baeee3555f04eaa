/**
 * LuaSandbox: one fengari VM prepared for untrusted code, reused across calls with a clean
 * environment each time.
 *
 * Set-up (once per VM, at its first call; compiling needs only the bare VM): open base, string,
 * table, math, utf8, coroutine and os; keep of the base library everything except `dofile`,
 * `loadfile`, `collectgarbage` (and never `require`, `package`, `io`, `debug`, `js`: they are not
 * even in the bundle); `load` forced to text mode; `string.dump` dropped; `os` reduced to `time`,
 * `clock`, `date`; `print`, `math.random`, `math.randomseed` and `json` replaced by JavaScript
 * functions; the string metatable protected (`getmetatable("")` returns false). These pristine
 * values are kept in tables reachable only from the registry, which no script can reach (there
 * is no `debug` library).
 *
 * Each call (`pushCallEnvironment`): a new, empty global table whose protected metatable reads
 * through to the pristine base functions; `_G` points at it; the registry's global table is it (so
 * `load` compiles into it); the chunk's `_ENV` upvalue is set to it. The first read of a library
 * name (`string`, `table`, `math`, `utf8`, `coroutine`, `os`, `json`) in a call stores a fresh copy
 * of that library in the call's table (for `string`, the string metatable's `__index` is pointed
 * at the copy, so `("x"):upper()` and `string.upper` agree); assigning a library name settles it.
 * Nothing a script creates or changes is reachable from the next call. Known differences from
 * plain Lua: `pairs(_G)` lists only the call's own globals, a base function assigned nil still
 * resolves, and `setmetatable(_G, ...)` is refused (the metatable is protected).
 */
import type { LuaCFunction, LuaState, VmTable } from '#lua-vm';
import { lauxlib, lazyTables, lua, lualib } from '#lua-vm';
import { toVmValue, type LazyContext } from './lazy-table.js';
import { BudgetMeter } from './budget-meter.js';
import { JsonBridge } from './json-bridge.js';
import {
  createCallContext,
  createJsonFunctions,
  createLoad,
  createPrint,
  createRandom,
  createRandomSeed,
} from './sandbox-functions.js';
import type { CallContext } from './sandbox-functions.js';

/** The chunk name; Lua prefixes messages with `lua:<line>:`. */
export const CHUNK_NAME = '=lua';

const REMOVED_BASE = ['dofile', 'loadfile', 'collectgarbage', 'require', '_G'];
const LIBRARIES = ['string', 'table', 'math', 'utf8', 'coroutine', 'os', 'json'] as const;
const OS_KEPT = ['time', 'clock', 'date'];
const LONGEST_LIBRARY_NAME = Math.max(...LIBRARIES.map((name) => name.length));

export class LuaSandbox {
  readonly state: LuaState;
  readonly meter = new BudgetMeter();
  readonly bridge = new JsonBridge();
  readonly call: CallContext = createCallContext();
  /** Set when a JavaScript exception went through the VM (budget or internal): never reuse it. */
  broken = false;
  /** Registry references: the environment metatable, pristine libraries, the string metatable. */
  private environmentMetatableRef = 0;
  private readonly libraryRefs: number[] = [];
  private stringMetatableRef = 0;
  private emptyRef = 0;
  private prepared = false;
  private lazy: LazyContext | null = null;

  /** A bare VM: enough to compile a chunk. The libraries are set up on the first call. */
  constructor() {
    this.state = lauxlib.luaL_newstate();
    this.state.l_G.teaBudget = this.meter;
  }

  /** Opens and trims the libraries and builds the pristine tables (once per VM). */
  private prepare(): void {
    const state = this.state;
    this.prepared = true;
    this.bridge.install(state);
    for (const [name, open] of [
      ['_G', lualib.luaopen_base],
      ['string', lualib.luaopen_string],
      ['table', lualib.luaopen_table],
      ['math', lualib.luaopen_math],
      ['utf8', lualib.luaopen_utf8],
      ['coroutine', lualib.luaopen_coroutine],
      ['os', lualib.luaopen_os],
    ] as const) {
      lauxlib.luaL_requiref(state, name, open, 1);
      lua.lua_pop(state, 1);
    }
    lua.lua_rawgeti(state, lua.LUA_REGISTRYINDEX, lua.LUA_RIDX_GLOBALS);
    const globals = lua.lua_gettop(state);

    // Base functions: everything in the opened global table that is not a library or removed.
    lua.lua_getfield(state, globals, 'load');
    const originalLoad = lua.lua_tocfunction(state, -1) as LuaCFunction;
    lua.lua_pop(state, 1);
    this.setFunction(globals, 'load', createLoad(originalLoad));
    this.setFunction(globals, 'print', createPrint(this.call, this.bridge));
    for (const name of [...REMOVED_BASE, ...LIBRARIES]) {
      lua.lua_pushnil(state);
      lua.lua_setfield(state, globals, name);
    }

    // Libraries, trimmed; json built here.
    lua.lua_getfield(state, lua.LUA_REGISTRYINDEX, '_LOADED');
    const loaded = lua.lua_gettop(state);
    for (const name of LIBRARIES) {
      if (name === 'json') this.pushJsonLibrary();
      else if (name === 'os') this.pushTrimmedOs(loaded);
      else lua.lua_getfield(state, loaded, name);
      const library = lua.lua_gettop(state);
      if (name === 'string') {
        lua.lua_pushnil(state);
        lua.lua_setfield(state, library, 'dump');
      }
      if (name === 'math') {
        this.setFunction(library, 'random', createRandom(this.call));
        this.setFunction(library, 'randomseed', createRandomSeed(this.call));
      }
      this.libraryRefs.push(lauxlib.luaL_ref(state, lua.LUA_REGISTRYINDEX));
    }
    lua.lua_pop(state, 1); // _LOADED

    // json.null prints as "null"; the light userdata metatable is protected like the string one.
    lua.lua_pushlightuserdata(state, this.bridge.nullSentinel);
    lua.lua_createtable(state, 0, 2);
    lua.lua_pushcfunction(state, (thread) => {
      lua.lua_pushliteral(thread, 'null');
      return 1;
    });
    lua.lua_setfield(state, -2, '__tostring');
    lua.lua_pushboolean(state, false);
    lua.lua_setfield(state, -2, '__metatable');
    lua.lua_setmetatable(state, -2);
    lua.lua_pop(state, 1);

    // The string metatable: protected from getmetatable, its __index set per call.
    this.bridge.pushString(state, '');
    lua.lua_getmetatable(state, -1);
    lua.lua_pushboolean(state, false);
    lua.lua_setfield(state, -2, '__metatable');
    this.stringMetatableRef = lauxlib.luaL_ref(state, lua.LUA_REGISTRYINDEX);
    lua.lua_pop(state, 1);

    // The trimmed global table becomes the pristine base: reached from each call's global
    // table through a protected metatable; its own __index hands out library copies.
    lua.lua_createtable(state, 0, 1);
    lua.lua_pushcfunction(state, (thread) => this.materializeLibrary(thread));
    lua.lua_setfield(state, -2, '__index');
    lua.lua_setmetatable(state, globals);
    lua.lua_createtable(state, 0, 3);
    lua.lua_pushvalue(state, globals);
    lua.lua_setfield(state, -2, '__index');
    lua.lua_pushcfunction(state, (thread) => this.assignGlobal(thread));
    lua.lua_setfield(state, -2, '__newindex');
    lua.lua_pushboolean(state, false);
    lua.lua_setfield(state, -2, '__metatable');
    this.environmentMetatableRef = lauxlib.luaL_ref(state, lua.LUA_REGISTRYINDEX);
    lua.lua_pop(state, 1);
    lua.lua_createtable(state, 0, 0);
    this.emptyRef = lauxlib.luaL_ref(state, lua.LUA_REGISTRYINDEX);
    lua.lua_settop(state, 0);
  }

  /**
   * Pushes a fresh global table for one call (at the top of the stack) and installs it as the
   * registry globals. `globals` are converted from JSON and set on it.
   */
  pushCallEnvironment(globals: Record<string, unknown>): void {
    if (!this.prepared) this.prepare();
    const state = this.state;
    lua.lua_createtable(state, 0, 8);
    const environment = lua.lua_gettop(state);
    lua.lua_rawgeti(state, lua.LUA_REGISTRYINDEX, this.environmentMetatableRef);
    lua.lua_setmetatable(state, environment);
    // Raw sets: the environment's __newindex is for the script's own assignments.
    this.bridge.pushString(state, '_G');
    lua.lua_pushvalue(state, environment);
    lua.lua_rawset(state, environment);
    // Objects and arrays enter as lazy tables: converted as the script reads them.
    for (const name of Object.keys(globals)) {
      this.bridge.pushString(state, name);
      const value = globals[name];
      if (typeof value === 'object' && value !== null) {
        lua.lua_checkstack(state, 1);
        lazyTables.push(state, toVmValue(this.lazyContext(), value, name));
      } else {
        this.bridge.push(state, value, name);
      }
      lua.lua_rawset(state, environment);
    }
    lua.lua_pushvalue(state, environment);
    lua.lua_rawseti(state, lua.LUA_REGISTRYINDEX, lua.LUA_RIDX_GLOBALS);
  }

  private lazyContext(): LazyContext {
    if (this.lazy !== null) return this.lazy;
    const bridge = this.bridge;
    bridge.pushArrayMetatable(this.state);
    const arrayMetatable = lua.lua_topointer(this.state, -1) as VmTable;
    lua.lua_pop(this.state, 1);
    this.lazy = {
      state: this.state,
      nullSentinel: bridge.nullSentinel,
      arrayMetatable,
      bytesOf: (text) => bridge.bytesOf(text),
      decode: (bytes) => bridge.toText(bytes),
    };
    return this.lazy;
  }

  /** `__newindex` of a call's global table: assigning a library name (even nil) settles it. */
  private assignGlobal(state: LuaState): number {
    const index = this.libraryIndex(state);
    if (index >= 0) this.call.materialized |= 1 << index;
    lua.lua_settop(state, 3);
    lua.lua_rawset(state, 1);
    return 0;
  }

  private libraryIndex(state: LuaState): number {
    if (lua.lua_type(state, 2) !== lua.LUA_TSTRING) return -1;
    const bytes = lua.lua_tostring(state, 2) as Uint8Array;
    // Every global read or write of a missing name comes here: never decode a long key.
    if (bytes.length > LONGEST_LIBRARY_NAME) return -1;
    return LIBRARIES.indexOf(this.bridge.toText(bytes) as (typeof LIBRARIES)[number]);
  }

  /**
   * `__index` of the pristine base table: the first time a call reads a library global, it gets
   * a fresh copy of the library, stored in the call's global table.
   */
  private materializeLibrary(state: LuaState): number {
    const index = this.libraryIndex(state);
    const bit = 1 << index;
    if (index < 0 || (this.call.materialized & bit) !== 0) return 0;
    this.call.materialized |= bit;
    lua.lua_rawgeti(state, lua.LUA_REGISTRYINDEX, this.libraryRefs[index] as number);
    lua.lua_createtable(state, 0, 32);
    const copy = lua.lua_gettop(state);
    this.copyInto(state, copy, copy - 1);
    if (LIBRARIES[index] === 'json') {
      lua.lua_pushlightuserdata(state, this.bridge.nullSentinel);
      lua.lua_setfield(state, copy, 'null');
    }
    if (LIBRARIES[index] === 'string') {
      lua.lua_rawgeti(state, lua.LUA_REGISTRYINDEX, this.stringMetatableRef);
      lua.lua_pushvalue(state, copy);
      lua.lua_setfield(state, -2, '__index');
      lua.lua_pop(state, 1);
    }
    lua.lua_rawgeti(state, lua.LUA_REGISTRYINDEX, lua.LUA_RIDX_GLOBALS);
    lua.lua_pushvalue(state, 2);
    lua.lua_pushvalue(state, copy);
    lua.lua_rawset(state, -3);
    lua.lua_pop(state, 1);
    return 1;
  }

  /** Resets the per-call context (print sink, random generator). */
  resetCallContext(onPrint: ((line: string) => void) | undefined, printBytes: number): void {
    this.call.onPrint = onPrint;
    this.call.printBytesLeft = printBytes;
    this.call.printTruncated = false;
    this.call.randomState = null;
    this.call.materialized = 0;
  }

  /** Pushes the shared, always-empty placeholder table (never handed to scripts). */
  pushEmptyTable(): void {
    lua.lua_rawgeti(this.state, lua.LUA_REGISTRYINDEX, this.emptyRef);
  }

  /** Drops the references to the last call's environment so its memory can be reclaimed. */
  releaseCallEnvironment(): void {
    const state = this.state;
    lua.lua_settop(state, 0);
    this.pushEmptyTable();
    lua.lua_rawseti(state, lua.LUA_REGISTRYINDEX, lua.LUA_RIDX_GLOBALS);
    lua.lua_rawgeti(state, lua.LUA_REGISTRYINDEX, this.stringMetatableRef);
    lua.lua_rawgeti(state, lua.LUA_REGISTRYINDEX, this.libraryRefs[0] as number);
    lua.lua_setfield(state, -2, '__index');
    lua.lua_settop(state, 0);
    this.call.onPrint = undefined;
  }

  /** Copies every entry of the table at `source` into the table at `target` (raw). */
  private copyInto(state: LuaState, target: number, source: number): void {
    lua.lua_pushnil(state);
    while (lua.lua_next(state, source)) {
      lua.lua_pushvalue(state, -2);
      lua.lua_insert(state, -2);
      lua.lua_rawset(state, target);
    }
  }

  private setFunction(table: number, name: string, fn: LuaCFunction): void {
    lua.lua_pushcfunction(this.state, fn);
    lua.lua_setfield(this.state, table, name);
  }

  private pushJsonLibrary(): void {
    const functions = createJsonFunctions(this.bridge);
    lua.lua_createtable(this.state, 0, 4);
    for (const [name, fn] of Object.entries(functions)) this.setFunction(lua.lua_gettop(this.state), name, fn);
  }

  private pushTrimmedOs(loaded: number): void {
    const state = this.state;
    lua.lua_getfield(state, loaded, 'os');
    lua.lua_createtable(state, 0, OS_KEPT.length);
    for (const name of OS_KEPT) {
      lua.lua_getfield(state, -2, name);
      lua.lua_setfield(state, -2, name);
    }
    lua.lua_replace(state, -2);
  }
}
