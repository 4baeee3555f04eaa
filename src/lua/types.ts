/** A Lua chunk compiled (syntax-checked) at agent load, run many times in a clean environment. */
export interface LuaBudget {
  /** VM instructions per call (default 1,000,000). */
  instructions?: number;
  /** Largest single string in bytes (default 1 MiB). */
  maxStringBytes?: number;
  /** Total bytes of strings created in one call (default 16 MiB). */
  totalStringBytes?: number;
  /** Total table slots created in one call (default 250,000). */
  tableSlots?: number;
  /** Pattern-matching steps per call (default 1,000,000). */
  patternSteps?: number;
  /** Total bytes of `print` output passed to `onPrint` per call (default 64 KiB); the rest is dropped. */
  printBytes?: number;
}

export interface CompiledLua {
  readonly source: string;
  /**
   * Runs the chunk as a function body with the given globals (converted JSON → Lua) and returns
   * its return value converted Lua → JSON. Throws AgentError LUA_ERROR / LUA_BUDGET, never a raw
   * JavaScript error. `print` output goes to `onPrint`.
   */
  run(globals: Record<string, unknown>, options?: { budget?: LuaBudget; onPrint?: (line: string) => void }): unknown;
}
