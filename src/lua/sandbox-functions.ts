/**
 * The JavaScript-implemented functions of the Lua sandbox: `print` (to the run's print sink,
 * capped), `load` (text chunks only), `math.random`/`math.randomseed` (generator state per call,
 * not fengari's module-wide one), and the `json` library. Each is a Lua C function; errors a
 * script can cause are raised as Lua errors so `pcall` sees them.
 */
import type { LuaCFunction, LuaState } from '#lua-vm';
import { lauxlib, lua } from '#lua-vm';
import type { BudgetMeter } from './budget-meter.js';
import { type JsonBridge, LuaConversionError } from './json-bridge.js';
import { capErrorText } from './error-text.js';
import { messageOf } from '../util/message-of.js';

/** Where one call's `print` output and random generator live; reset before every call. */
export interface CallContext {
  onPrint: ((line: string) => void) | undefined;
  printBytesLeft: number;
  printTruncated: boolean;
  /** 32-bit generator state after `math.randomseed`, or null to use `Math.random`. */
  randomState: number | null;
  /** Bit set of the libraries this call has received a copy of (see LuaSandbox). */
  materialized: number;
}

/** Charges work done by a library function to the running call's instruction budget. */
function chargeInstructions(state: LuaState, instructions: number): void {
  const meter = state.l_G.teaBudget;
  if (meter?.armed && instructions > 0) meter.chargeInstructions(state, instructions);
}

export function createCallContext(): CallContext {
  return { onPrint: undefined, printBytesLeft: 0, printTruncated: false, randomState: null, materialized: 0 };
}

/** `print(...)`: arguments through `tostring`, tab-separated, one line per call, capped per call. */
export function createPrint(context: CallContext, bridge: JsonBridge): LuaCFunction {
  return (state) => {
    const count = lua.lua_gettop(state);
    const parts: Uint8Array[] = [];
    let bytes = 0;
    for (let index = 1; index <= count; index += 1) {
      const part = lauxlib.luaL_tolstring(state, index);
      bytes += part.length;
      parts.push(part);
      lua.lua_pop(state, 1);
    }
    chargeInstructions(state, bytes >> 5);
    if (context.onPrint === undefined || context.printTruncated) return 0;
    // Decode no more than can still be shown (a UTF-8 character is at most 4 bytes).
    const room = context.printBytesLeft;
    let line = parts
      .map((part) => bridge.toText(part.length > room * 4 ? part.subarray(0, room * 4) : part))
      .join('\t');
    if (line.length + 1 > room) {
      line = `${line.slice(0, Math.max(0, room - 1))}… [print output truncated]`;
      context.printTruncated = true;
    }
    context.printBytesLeft -= line.length + 1;
    context.onPrint(line);
    return 0;
  };
}

/** `load(chunk, name, mode, env)` with the mode forced to text: binary chunks are refused. */
export function createLoad(originalLoad: LuaCFunction): LuaCFunction {
  return (state) => {
    if (lua.lua_gettop(state) < 3) lua.lua_settop(state, 3);
    lua.lua_pushliteral(state, 't');
    lua.lua_replace(state, 3);
    return originalLoad(state);
  };
}

/** mulberry32 step: returns the next state and a float in [0, 1). */
function nextRandom(seed: number): [number, number] {
  const next = (seed + 0x6d2b79f5) | 0;
  let mixed = Math.imul(next ^ (next >>> 15), next | 1);
  mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
  return [next, ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296];
}

/** `math.random([m [, n]])` as in Lua 5.3, with the generator state held per call. */
export function createRandom(context: CallContext): LuaCFunction {
  return (state) => {
    let fraction: number;
    if (context.randomState === null) fraction = Math.random();
    else [context.randomState, fraction] = nextRandom(context.randomState);
    const count = lua.lua_gettop(state);
    if (count === 0) {
      lua.lua_pushnumber(state, fraction);
      return 1;
    }
    if (count > 2) return lauxlib.luaL_error(state, 'wrong number of arguments');
    const low = count === 1 ? 1 : lauxlib.luaL_checkinteger(state, 1);
    const high = lauxlib.luaL_checkinteger(state, count);
    if (low > high) return lauxlib.luaL_argerror(state, count, 'interval is empty');
    lua.lua_pushinteger(state, low + Math.floor(fraction * (high - low + 1)));
    return 1;
  };
}

/** `math.randomseed(x)`: makes `math.random` deterministic for the rest of this call. */
export function createRandomSeed(context: CallContext): LuaCFunction {
  return (state) => {
    context.randomState = lauxlib.luaL_checknumber(state, 1) | 0;
    return 0;
  };
}

/**
 * The charge for the strings `json.encode` reads out of Lua: every emission against the string
 * budget (a string referenced 3,000 times is paid 3,000 times), the running total against the
 * size of one string (the output holds them all). Nothing is charged when the meter is off.
 */
function encodeCharge(state: LuaState): ((bytes: number) => void) | undefined {
  const meter = state.l_G.teaBudget as BudgetMeter | null;
  if (meter === null || !meter.armed) return undefined;
  let output = 0;
  return (bytes) => {
    output += bytes;
    meter.countConversion(state, bytes, output);
  };
}

/** The `json` library's functions: encode, decode and array (`null` is set by the sandbox). */
export function createJsonFunctions(bridge: JsonBridge): Record<'encode' | 'decode' | 'array', LuaCFunction> {
  return {
    encode: (state) => {
      lauxlib.luaL_checkany(state, 1);
      let text: string;
      try {
        const chargeBytes = encodeCharge(state);
        text = JSON.stringify(bridge.read(state, 1, chargeBytes === undefined ? {} : { chargeBytes }));
      } catch (error) {
        if (error instanceof LuaConversionError) {
          chargeInstructions(state, bridge.lastConversionSize);
          return lauxlib.luaL_error(state, capErrorText(`json.encode: ${error.message}`));
        }
        throw error;
      }
      chargeInstructions(state, bridge.lastConversionSize);
      bridge.pushString(state, text);
      return 1;
    },
    decode: (state) => {
      const bytes = lauxlib.luaL_checkstring(state, 1);
      chargeInstructions(state, bytes.length >> 5);
      const text = bridge.toText(bytes);
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (error) {
        return lauxlib.luaL_error(state, capErrorText(`json.decode: ${messageOf(error, 'invalid JSON')}`));
      }
      try {
        bridge.push(state, value);
      } catch (error) {
        if (error instanceof LuaConversionError)
          return lauxlib.luaL_error(state, capErrorText(`json.decode: ${error.message}`));
        throw error;
      } finally {
        chargeInstructions(state, bridge.lastConversionSize);
      }
      return 1;
    },
    array: (state) => {
      if (lua.lua_type(state, 1) <= lua.LUA_TNIL) {
        lua.lua_settop(state, 0);
        lua.lua_createtable(state, 0, 0);
      } else {
        lauxlib.luaL_checktype(state, 1, lua.LUA_TTABLE);
        lua.lua_settop(state, 1);
        if (lua.lua_getmetatable(state, 1)) {
          bridge.pushArrayMetatable(state);
          const marked = lua.lua_rawequal(state, -1, -2);
          lua.lua_pop(state, 2);
          if (marked) return 1;
          return lauxlib.luaL_argerror(state, 1, 'table already has a metatable');
        }
      }
      bridge.pushArrayMetatable(state);
      lua.lua_setmetatable(state, 1);
      return 1;
    },
  };
}
