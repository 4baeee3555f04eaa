/**
 * compileLua: inline Lua (docs/spec.md#3-inline-lua) compiled at agent load, run many times in a sandbox.
 *
 * The code is the body of a function (`return state.x + 1` works): it sees the globals passed
 * to `run` (e.g. `state`, `variables`, `output`, `iteration`, converted from JSON) and its first
 * return value, converted back to JSON, is the result. See src/lua/README.md for the sandbox
 * (what is available, the budgets, how isolation between calls works).
 *
 * Failures are AgentErrors: LUA_SYNTAX at compile (node and line), LUA_ERROR at run (node, line,
 * Lua message; also for values with no JSON form), LUA_BUDGET with `details.budget` naming the
 * budget. No raw JavaScript exception escapes. A call also ends when `signal` aborts (with its
 * reason, else CANCELLED) or `interrupt` throws; neither can be caught by the script. Every error
 * message is capped (MAX_ERROR_TEXT) with a note that it was cut.
 *
 * @example
 *   const evaluator = compileLua('return { valid = #output > 3, score = 1 }', { node: 'judge', field: 'run' });
 *   evaluator.run({ state: {}, output: 'hello' }); // → { valid: true, score: 1 }
 */
import { AgentError } from '../core/agent-error.js';
import type { CompiledLua, LuaBudget, LuaRunOptions } from './types.js';
import { lua, lauxlib } from '#lua-vm';
import { LuaBudgetExceeded, resolveBudget } from './budget-meter.js';
import { LuaConversionError, typeName } from './json-bridge.js';
import { capErrorText, decodeErrorText } from './error-text.js';
import { CHUNK_NAME, LuaSandbox } from './lua-sandbox.js';
import { LazyConversionError } from './lazy-table.js';
import { messageOf } from '../util/message-of.js';

/** Where the chunk comes from. */
export interface LuaSourceLocation {
  node?: string;
  field?: string;
  file?: string;
  /** Line offset of the chunk in the file: file line = `line` + chunk line (0 when the code starts on line 1). */
  line?: number;
}

export type { LuaRunOptions } from './types.js';

/** Bytes of strings kept from a non-string error value (`error({...})`) in `details.value`. */
const MAX_ERROR_VALUE_BYTES = 4096;

/** Compiles `code` (syntax-checked now) into a reusable, sandboxed chunk. Throws LUA_SYNTAX. */
export function compileLua(code: string, where: LuaSourceLocation = {}): CompiledLua {
  return new SandboxedChunk(code, where);
}

/** `lua:<line>: message` → its parts (the chunk name is CHUNK_NAME). */
function splitLuaMessage(message: string): { line: number | undefined; text: string } {
  const match = /^lua:(\d+): ([\s\S]*)$/.exec(message);
  return match === null ? { line: undefined, text: message } : { line: Number(match[1]), text: match[2] as string };
}

class SandboxedChunk implements CompiledLua {
  readonly language = 'lua';
  readonly source: string;
  private readonly where: LuaSourceLocation;
  private readonly bytes: Uint8Array;
  /** The reusable VM and the registry reference of the loaded chunk in it. */
  private sandbox: LuaSandbox | null = null;
  private chunkRef = 0;
  private busy = false;

  constructor(code: string, where: LuaSourceLocation) {
    this.source = code;
    this.where = { ...where };
    this.bytes = new TextEncoder().encode(code);
    const sandbox = this.createSandbox();
    this.sandbox = sandbox.sandbox;
    this.chunkRef = sandbox.chunkRef;
  }

  run(globals: Record<string, unknown>, options: LuaRunOptions = {}): unknown {
    if (this.busy) {
      // Re-entered from a callback of the running call: use a throwaway VM.
      const { sandbox, chunkRef } = this.createSandbox();
      return this.execute(sandbox, chunkRef, globals, options);
    }
    this.busy = true;
    try {
      // A VM an exception went through is not reused (its Lua stacks were not unwound).
      if (this.sandbox === null || this.sandbox.broken) {
        this.sandbox = null;
        const created = this.createSandbox();
        this.sandbox = created.sandbox;
        this.chunkRef = created.chunkRef;
      }
      return this.execute(this.sandbox, this.chunkRef, globals, options);
    } finally {
      this.busy = false;
    }
  }

  private createSandbox(): { sandbox: LuaSandbox; chunkRef: number } {
    let sandbox: LuaSandbox;
    let status: number;
    try {
      sandbox = new LuaSandbox();
      status = lauxlib.luaL_loadbufferx(sandbox.state, this.bytes, this.bytes.length, CHUNK_NAME, 't');
    } catch (error) {
      throw this.error('LUA_SYNTAX', `cannot compile the Lua code: ${messageOf(error)}`, undefined);
    }
    const state = sandbox.state;
    if (status !== lua.LUA_OK) {
      const message = decodeErrorText(lua.lua_tostring(state, -1) ?? new Uint8Array(), (bytes) =>
        sandbox.bridge.toText(bytes),
      );
      const { line, text } = splitLuaMessage(message);
      throw this.error('LUA_SYNTAX', `Lua syntax error: ${text}`, line);
    }
    return { sandbox, chunkRef: lauxlib.luaL_ref(state, lua.LUA_REGISTRYINDEX) };
  }

  private execute(
    sandbox: LuaSandbox,
    chunkRef: number,
    globals: Record<string, unknown>,
    options: LuaRunOptions,
  ): unknown {
    const state = sandbox.state;
    const limits = this.resolveLimits(options.budget);
    let status: number;
    try {
      sandbox.resetCallContext(options.onPrint, limits.printBytes);
      sandbox.pushCallEnvironment(globals);
      lua.lua_rawgeti(state, lua.LUA_REGISTRYINDEX, chunkRef);
      lua.lua_pushvalue(state, -2);
      lua.lua_setupvalue(state, -2, 1);
      sandbox.meter.arm(state, limits, { signal: options.signal, interrupt: options.interrupt });
      status = lua.lua_pcall(state, 0, 1, 0);
    } catch (error) {
      sandbox.meter.disarm();
      sandbox.broken = true;
      throw this.toAgentError(error);
    }
    sandbox.meter.disarm();
    try {
      if (status !== lua.LUA_OK) throw this.runtimeError(sandbox);
      return this.readResult(sandbox);
    } finally {
      this.release(sandbox, chunkRef);
    }
  }

  private resolveLimits(budget: LuaBudget | undefined): ReturnType<typeof resolveBudget> {
    try {
      return resolveBudget(budget);
    } catch (error) {
      throw this.toAgentError(error);
    }
  }

  /** The result as JSON; its strings are charged to the call's string budget as they are emitted. */
  private readResult(sandbox: LuaSandbox): unknown {
    const meter = sandbox.meter;
    try {
      return sandbox.bridge.read(sandbox.state, -1, { chargeBytes: (bytes) => meter.countConversion(null, bytes) });
    } catch (error) {
      if (error instanceof LuaConversionError)
        throw this.error('LUA_ERROR', `the Lua result cannot be converted to JSON: ${error.message}`, undefined);
      if (error instanceof LuaBudgetExceeded) {
        sandbox.broken = true;
        throw this.error(
          'LUA_BUDGET',
          `${error.message} while converting the result to JSON (a string is counted each time it is referenced)`,
          undefined,
          { budget: error.budget, limit: error.limit },
        );
      }
      throw this.toAgentError(error);
    }
  }

  /** Lets go of the call's environment: the chunk's _ENV and the registry globals. */
  private release(sandbox: LuaSandbox, chunkRef: number): void {
    const state = sandbox.state;
    try {
      lua.lua_settop(state, 0);
      lua.lua_rawgeti(state, lua.LUA_REGISTRYINDEX, chunkRef);
      sandbox.pushEmptyTable();
      lua.lua_setupvalue(state, -2, 1);
      sandbox.releaseCallEnvironment();
    } catch {
      // Not expected; a VM that cannot be reset is simply not reused.
      sandbox.broken = true;
    }
  }

  /** The error value of a failed pcall (at the top of the stack) as LUA_ERROR. */
  private runtimeError(sandbox: LuaSandbox): AgentError {
    const state = sandbox.state;
    const type = lua.lua_type(state, -1);
    let failure: AgentError;
    if (type === lua.LUA_TSTRING) {
      const { line, text } = splitLuaMessage(
        decodeErrorText(lua.lua_tostring(state, -1) as Uint8Array, (bytes) => sandbox.bridge.toText(bytes)),
      );
      failure = this.error('LUA_ERROR', text, line);
    } else {
      // Never call __tostring here: the budget is off. Keep the value when it is plain JSON.
      failure = this.error('LUA_ERROR', `the Lua code raised an error object of type ${typeName(type)}`, undefined);
      let bytes = 0;
      const chargeBytes = (count: number): void => {
        bytes += count;
        if (bytes > MAX_ERROR_VALUE_BYTES) throw new LuaConversionError('error value too large');
      };
      try {
        const value = sandbox.bridge.read(state, -1, { chargeBytes });
        if (sandbox.bridge.lastConversionSize <= 1000) failure.details.value = value;
      } catch {
        // not convertible or too large: the type in the message is all there is
      }
    }
    return failure;
  }

  private toAgentError(error: unknown): AgentError {
    if (AgentError.isInstance(error)) {
      // An abort reason or an interrupt (CANCELLED, BUDGET_EXCEEDED…): say which node it stopped.
      if (error.location.node !== undefined || this.where.node === undefined) return error;
      return new AgentError(error.code, capErrorText(error.message), {
        node: this.where.node,
        field: this.where.field,
        details: error.details,
        cause: error,
      });
    }
    if (error instanceof LuaBudgetExceeded) {
      return this.error('LUA_BUDGET', error.message, error.line, { budget: error.budget, limit: error.limit });
    }
    if (error instanceof RangeError && /call stack/i.test(error.message)) {
      return this.error('LUA_BUDGET', 'Lua stack budget exceeded (JavaScript call stack)', undefined, {
        budget: 'stack',
      });
    }
    if (error instanceof LuaConversionError || error instanceof LazyConversionError)
      return this.error('LUA_ERROR', `cannot pass the globals to Lua: ${error.message}`, undefined);
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return this.error('LUA_ERROR', `internal error in the Lua VM: ${message}`, undefined);
  }

  private error(
    code: 'LUA_SYNTAX' | 'LUA_ERROR' | 'LUA_BUDGET',
    text: string,
    chunkLine: number | undefined,
    details: Record<string, unknown> = {},
  ): AgentError {
    const { node, field, file } = this.where;
    const fileLine = chunkLine !== undefined && this.where.line !== undefined ? this.where.line + chunkLine : undefined;
    const shownLine = fileLine ?? chunkLine;
    const capped = capErrorText(text);
    const message = shownLine === undefined || file !== undefined ? capped : `line ${shownLine}: ${capped}`;
    if (chunkLine !== undefined) details.line = chunkLine;
    return new AgentError(code, message, {
      node,
      field,
      file,
      line: file !== undefined ? (fileLine ?? chunkLine) : fileLine,
      details,
    });
  }
}
