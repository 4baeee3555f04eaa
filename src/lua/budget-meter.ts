/**
 * BudgetMeter: the per-VM object the patched fengari calls at every place where one Lua
 * instruction can do unbounded work (build/fengari-transform.mjs installs the calls; they read
 * `g.teaBudget`). It counts work, never wall time. When a budget is spent it throws
 * `LuaBudgetExceeded`, a JavaScript exception: the patched VM lets JavaScript exceptions pass
 * through every protected call, so `pcall`, `xpcall` (and its message handler) and coroutines
 * cannot catch it, and no Lua code runs after it. The VM is then discarded by its owner.
 */
import type { FengariBudgetHooks, LuaState } from './vendor/fengari.js';
import { lua } from './vendor/fengari.js';
import type { LuaBudget } from './types.js';

/** Which budget ran out (`details.budget` of a LUA_BUDGET error). */
export type LuaBudgetName = 'instructions' | 'string_size' | 'string_bytes' | 'table_growth' | 'pattern_steps' | 'stack';

/** The defaults of SPEC §3, plus the cap on `print` output. */
export const DEFAULT_LUA_BUDGET: Readonly<Required<LuaBudget>> = Object.freeze({
  instructions: 1_000_000,
  maxStringBytes: 1024 * 1024,
  totalStringBytes: 16 * 1024 * 1024,
  // ~250k slots keeps one call well under a Workers isolate's 128 MB.
  tableSlots: 250_000,
  patternSteps: 1_000_000,
  printBytes: 64 * 1024,
});

/** LUAI_MAXSTACK as set by build/fengari-transform.mjs. */
const LUA_STACK_SLOTS = 100_000;

/** Thrown through the VM when a budget is spent; turned into LUA_BUDGET by compile-lua. */
export class LuaBudgetExceeded extends Error {
  readonly budget: LuaBudgetName;
  readonly limit: number;
  /** The chunk line that was running, when known. */
  readonly line: number | undefined;

  constructor(budget: LuaBudgetName, limit: number, line?: number) {
    super(`Lua ${budget.replace('_', ' ')} budget exceeded (limit ${limit})`);
    this.name = 'LuaBudgetExceeded';
    this.budget = budget;
    this.limit = limit;
    this.line = line;
  }
}

/** The count hook: called once when the instruction budget of the running call is spent. */
function instructionHook(state: LuaState): void {
  const meter = state.l_G.teaBudget as BudgetMeter | null;
  meter?.exceed(state, 'instructions');
}

/** The innermost line of the agent's chunk on the call stack (not of `load`ed chunks). */
function currentChunkLine(state: LuaState): number | undefined {
  const debug = new lua.lua_Debug();
  for (let level = 0; level < 8 && lua.lua_getstack(state, level, debug) === 1; level += 1) {
    lua.lua_getinfo(state, 'Sl', debug);
    const source = debug.source;
    // '=lua', the chunk name of compile-lua
    if (debug.currentline > 0 && source !== null && source.length === 4 && source[0] === 61 && source[1] === 108) return debug.currentline;
  }
  return undefined;
}

/** Resolves a partial budget against the defaults, rejecting nonsense values. */
export function resolveBudget(budget: LuaBudget | undefined): Required<LuaBudget> {
  const resolved = { ...DEFAULT_LUA_BUDGET };
  if (budget === undefined) return resolved;
  for (const key of Object.keys(resolved) as (keyof LuaBudget)[]) {
    const value = budget[key];
    if (value !== undefined && Number.isFinite(value) && value > 0) resolved[key] = Math.floor(value);
  }
  return resolved;
}

export class BudgetMeter implements FengariBudgetHooks {
  /** True while user code runs; conversions by the host are not counted. */
  armed = false;
  /** Set once a budget is spent: the VM must not be reused. */
  exhausted: LuaBudgetExceeded | null = null;
  private limits: Readonly<Required<LuaBudget>> = DEFAULT_LUA_BUDGET;
  private stringBytes = 0;
  private tableSlots = 0;
  private patternSteps = 0;

  /** Resets the counters, installs the count hook on the main thread and arms the meter. */
  arm(state: LuaState, limits: Required<LuaBudget>): void {
    this.limits = limits;
    this.stringBytes = 0;
    this.tableSlots = 0;
    this.patternSteps = 0;
    lua.lua_sethook(state, instructionHook, lua.LUA_MASKCOUNT, limits.instructions);
    this.armed = true;
  }

  disarm(): void {
    this.armed = false;
  }

  /**
   * Marks the budget spent and throws. Also re-arms the count hook to fire on every instruction,
   * in case anything ever resumed this thread (defence in depth: the exception unwinds it all).
   * `state` is null where fengari has no thread at hand (a new table entry).
   */
  exceed(state: LuaState | null, budget: LuaBudgetName): never {
    const error = this.exhausted ?? new LuaBudgetExceeded(budget, this.limitOf(budget), state === null ? undefined : currentChunkLine(state));
    this.exhausted = error;
    if (state !== null) lua.lua_sethook(state, instructionHook, lua.LUA_MASKCOUNT, 1);
    throw error;
  }

  checkString(state: LuaState, length: number): void {
    if (length > this.limits.maxStringBytes) this.exceed(state, 'string_size');
    if (this.stringBytes + length > this.limits.totalStringBytes) this.exceed(state, 'string_bytes');
  }

  countString(state: LuaState, length: number): void {
    this.stringBytes += length;
    if (length > this.limits.maxStringBytes) this.exceed(state, 'string_size');
    if (this.stringBytes > this.limits.totalStringBytes) this.exceed(state, 'string_bytes');
  }

  countTableSlots(state: LuaState | null, count: number): void {
    this.tableSlots += count;
    if (this.tableSlots > this.limits.tableSlots) this.exceed(state, 'table_growth');
  }

  countPatternSteps(state: LuaState, count: number): void {
    this.patternSteps += count;
    if (this.patternSteps > this.limits.patternSteps) this.exceed(state, 'pattern_steps');
  }

  /** Work done by a library loop, charged to the instruction count of the running thread. */
  chargeInstructions(state: LuaState, count: number): void {
    state.hookcount -= count;
    if (state.hookcount <= 0) this.exceed(state, 'instructions');
  }

  stackOverflow(state: LuaState): void {
    this.exceed(state, 'stack');
  }

  private limitOf(budget: LuaBudgetName): number {
    switch (budget) {
      case 'string_size':
        return this.limits.maxStringBytes;
      case 'string_bytes':
        return this.limits.totalStringBytes;
      case 'table_growth':
        return this.limits.tableSlots;
      case 'pattern_steps':
        return this.limits.patternSteps;
      case 'instructions':
        return this.limits.instructions;
      case 'stack':
        return LUA_STACK_SLOTS;
    }
  }
}
