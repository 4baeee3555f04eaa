/** The Lua flavour of the ScriptSandbox seam (src/core/script-sandbox.ts). */
import type { CompiledScript, ScriptBudget, ScriptRunOptions } from '../core/script-sandbox.js';

/** The Lua budgets: the seam's `instructions` and `printBytes`, plus Lua's memory budgets. */
export interface LuaBudget extends ScriptBudget {
  /** VM instructions per call (default 1,000,000; ceiling 100,000,000). */
  instructions?: number;
  /** Largest single string in bytes (default 1 MiB; ceiling 16 MiB). */
  maxStringBytes?: number;
  /** Total bytes of strings created in one call, plus those converted out of Lua (default 16 MiB; ceiling 64 MiB). */
  totalStringBytes?: number;
  /** Total table slots created in one call, with closures and Lua stack growth (default 250,000; ceiling 1,000,000). */
  tableSlots?: number;
  /** Pattern-matching steps per call (default 1,000,000; ceiling 100,000,000). */
  patternSteps?: number;
  /** Total bytes of `print` output passed to `onPrint` per call (default 64 KiB; ceiling 1 MiB); the rest is dropped. */
  printBytes?: number;
}

export interface LuaRunOptions extends ScriptRunOptions {
  budget?: LuaBudget;
  onPrint?: (line: string) => void;
  /** The run's signal: when it aborts, the call ends (checked every 10,000 instructions). */
  signal?: AbortSignal;
  /** Called every 10,000 instructions; throwing (e.g. the run's duration budget) ends the call with that error. */
  interrupt?: () => void;
}

/** A Lua chunk compiled (syntax-checked) at agent load, run many times in a clean environment. */
export interface CompiledLua extends CompiledScript {
  readonly language: 'lua';
  /**
   * Runs the chunk as a function body with the given globals (converted JSON → Lua) and returns
   * its return value converted Lua → JSON. Throws AgentError LUA_ERROR / LUA_BUDGET, never a raw
   * JavaScript error. `print` output goes to `onPrint`. Ends with the abort reason (else
   * CANCELLED) when `signal` aborts, or with what `interrupt` throws.
   */
  run(globals: Record<string, unknown>, options?: LuaRunOptions): unknown;
}
