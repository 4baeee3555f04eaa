/**
 * BudgetMeter: the per-VM object the patched fengari calls at every place where one Lua
 * instruction can do unbounded work (build/fengari-transform.mjs installs the calls; they read
 * `g.teaBudget`). It counts work, never wall time. When a budget is spent it throws
 * `LuaBudgetExceeded`, a JavaScript exception: the patched VM lets JavaScript exceptions pass
 * through every protected call, so `pcall`, `xpcall` (and its message handler) and coroutines
 * cannot catch it, and no Lua code runs after it. The VM is then discarded by its owner.
 *
 * The instruction budget is handed to the VM in slices of INSTRUCTION_SLICE: at the end of each
 * slice the meter checks the run's AbortSignal and the host's `interrupt` callback (e.g. the run's
 * duration budget), and stops the call the same uncatchable way when either says so.
 */
import { AgentError } from '../core/agent-error.js';
import type { FengariBudgetHooks, LuaState } from '#lua-vm';
import { lua } from '#lua-vm';
import type { LuaBudget } from './types.js';
import { DEFAULT_LUA_BUDGET } from './budget-limits.js';

export { DEFAULT_LUA_BUDGET, LUA_BUDGET_CEILINGS, luaBudgetFromSettings, resolveBudget } from './budget-limits.js';

/** Which budget ran out (`details.budget` of a LUA_BUDGET error). */
export type LuaBudgetName =
  | 'instructions'
  | 'string_size'
  | 'string_bytes'
  | 'table_growth'
  | 'pattern_steps'
  | 'stack';

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

/** Instructions between two checks of the abort signal and the interrupt callback. */
export const INSTRUCTION_SLICE = 10_000;

/**
 * Stack slots per table slot charged for Lua stack growth: a stack slot weighs about 50 bytes in
 * fengari, a table slot 150-250.
 */
const STACK_SLOTS_PER_TABLE_SLOT = 3;

/** What, besides the budgets, may end a running call. */
export interface LuaInterrupts {
  /** The run's signal: once aborted, the call ends with its reason (an AgentError) or CANCELLED. */
  signal?: AbortSignal | undefined;
  /** Called every INSTRUCTION_SLICE instructions; throwing ends the call with that error. */
  interrupt?: (() => void) | undefined;
}

/** The count hook: called at the end of every instruction slice. */
function instructionHook(state: LuaState): void {
  const meter = state.l_G.teaBudget as BudgetMeter | null;
  meter?.nextSlice(state, 0);
}

/** The error an aborted signal ends a call with. */
function cancellation(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (AgentError.isInstance(reason)) return reason;
  return new AgentError('CANCELLED', 'the Lua call was cancelled: the run was aborted');
}

/** The innermost line of the agent's chunk on the call stack (not of `load`ed chunks). */
function currentChunkLine(state: LuaState): number | undefined {
  const debug = new lua.lua_Debug();
  for (let level = 0; level < 8 && lua.lua_getstack(state, level, debug) === 1; level += 1) {
    lua.lua_getinfo(state, 'Sl', debug);
    const source = debug.source;
    // '=lua', the chunk name of compile-lua
    if (debug.currentline > 0 && source !== null && source.length === 4 && source[0] === 61 && source[1] === 108)
      return debug.currentline;
  }
  return undefined;
}

export class BudgetMeter implements FengariBudgetHooks {
  /** True while user code runs; conversions by the host are not counted. */
  armed = false;
  /** Set once a budget is spent or the call interrupted: the VM must not be reused. */
  exhausted: Error | null = null;
  private limits: Readonly<Required<LuaBudget>> = DEFAULT_LUA_BUDGET;
  private interrupts: LuaInterrupts = {};
  /** Instructions of the budget not yet handed to the VM as a slice. */
  private instructionsLeft = 0;
  private stringBytes = 0;
  private tableSlots = 0;
  private patternSteps = 0;

  /** Resets the counters, installs the count hook on the main thread and arms the meter. */
  arm(state: LuaState, limits: Required<LuaBudget>, interrupts: LuaInterrupts = {}): void {
    this.limits = limits;
    this.interrupts = interrupts;
    this.stringBytes = 0;
    this.tableSlots = 0;
    this.patternSteps = 0;
    const slice = Math.min(INSTRUCTION_SLICE, limits.instructions);
    this.instructionsLeft = limits.instructions - slice;
    lua.lua_sethook(state, instructionHook, lua.LUA_MASKCOUNT, slice);
    this.armed = true;
    this.checkInterrupts(state);
  }

  disarm(): void {
    this.armed = false;
    this.interrupts = {};
  }

  /**
   * The slice of `state` is spent, `debt` instructions beyond it (work charged by library
   * functions): checks the signal and the interrupt callback, then hands out the next slice or
   * ends the call when the budget is spent.
   */
  nextSlice(state: LuaState, debt: number): void {
    if (this.exhausted !== null) this.stop(state, this.exhausted);
    this.checkInterrupts(state);
    if (this.instructionsLeft <= debt) this.exceed(state, 'instructions');
    this.instructionsLeft -= debt;
    const slice = Math.min(INSTRUCTION_SLICE, this.instructionsLeft);
    this.instructionsLeft -= slice;
    lua.lua_sethook(state, instructionHook, lua.LUA_MASKCOUNT, slice);
  }

  private checkInterrupts(state: LuaState | null): void {
    const { signal, interrupt } = this.interrupts;
    if (signal?.aborted === true) this.stop(state, cancellation(signal));
    if (interrupt === undefined) return;
    try {
      interrupt();
    } catch (error) {
      this.stop(
        state,
        error instanceof Error ? error : new AgentError('CANCELLED', `the Lua call was interrupted: ${String(error)}`),
      );
    }
  }

  /**
   * Marks the call ended and throws `error`. Also re-arms the count hook to fire on every
   * instruction, in case anything ever resumed this thread (defence in depth: the exception
   * unwinds it all). `state` is null where fengari has no thread at hand (a new table entry).
   */
  private stop(state: LuaState | null, error: Error): never {
    this.exhausted ??= error;
    if (state !== null) lua.lua_sethook(state, instructionHook, lua.LUA_MASKCOUNT, 1);
    throw this.exhausted;
  }

  /** Marks the budget spent and throws LuaBudgetExceeded (or the error that already ended the call). */
  exceed(state: LuaState | null, budget: LuaBudgetName): never {
    return this.stop(
      state,
      this.exhausted ??
        new LuaBudgetExceeded(budget, this.limitOf(budget), state === null ? undefined : currentChunkLine(state)),
    );
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

  /**
   * Bytes of Lua strings converted out of Lua (the result, `json.encode`), charged to the string
   * budget each time a string is emitted, so a string referenced many times is paid many times.
   * `outputSoFar`, when the output is one Lua string (json.encode), must also fit the size cap.
   */
  countConversion(state: LuaState | null, bytes: number, outputSoFar?: number): void {
    this.stringBytes += bytes;
    if (outputSoFar !== undefined && outputSoFar > this.limits.maxStringBytes) this.exceed(state, 'string_size');
    if (this.stringBytes > this.limits.totalStringBytes) this.exceed(state, 'string_bytes');
  }

  countTableSlots(state: LuaState | null, count: number): void {
    this.tableSlots += count;
    if (this.tableSlots > this.limits.tableSlots) this.exceed(state, 'table_growth');
  }

  /** A thread's stack resized from `from` to `to` slots: growth is charged to the table budget, shrinking refunds it. */
  resizeStack(state: LuaState, from: number, to: number): void {
    const slots = Math.ceil(to / STACK_SLOTS_PER_TABLE_SLOT) - Math.ceil(from / STACK_SLOTS_PER_TABLE_SLOT);
    if (slots !== 0) this.countTableSlots(state, slots);
  }

  countPatternSteps(state: LuaState, count: number): void {
    this.patternSteps += count;
    if (this.patternSteps > this.limits.patternSteps) this.exceed(state, 'pattern_steps');
  }

  /** Work done by a library loop, charged to the instruction count of the running thread. */
  chargeInstructions(state: LuaState, count: number): void {
    state.hookcount -= count;
    if (state.hookcount <= 0) this.nextSlice(state, -state.hookcount);
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
