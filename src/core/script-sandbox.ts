/**
 * The ScriptSandbox seam: how the engine runs an agent's inline code (Lua today, a Prolog sandbox
 * could be added later) without knowing the language or its VM. The host hands the engine its
 * sandboxes (`loadAgent(text, { scripts: { lua: luaSandbox } })`); an engine given none refuses
 * inline code with SCRIPT_ENGINE_NOT_LOADED, so a host can ship without a VM (the web demo's
 * light engine). Contracts only: this file imports nothing from src/. Every implementation runs
 * src/testing/script-sandbox-conformance.ts.
 *
 * What an implementation promises:
 * - `compile` checks syntax once, at agent load; a syntax error throws an error whose `code` is
 *   `errorCodes.syntax`, with `details.line` the line in the chunk and, when `where.line` (the
 *   chunk's offset in the agent file) is known, the file line in the error's location.
 * - `run` takes JSON globals and returns the script's result as JSON. Every failure is an error
 *   with a `code` (a raw JavaScript exception never escapes): `errorCodes.runtime` for the
 *   script's own errors, `errorCodes.budget` with `details.budget` naming the spent budget.
 * - Budgets are counted in work, never in time, and the script cannot catch their errors (no
 *   protected call, handler or coroutine of the language runs after one).
 * - `signal` and `interrupt` are checked while the script runs; an aborted signal ends the call
 *   with its reason (when that is an error with a code) and an already aborted one runs nothing.
 * - Each call starts from a clean environment: nothing a call defines is seen by the next.
 * - Error text is capped (a few KiB) with a note that it was cut.
 */

/** The languages an agent's inline code can be written in; the key of `ScriptSandboxes`. */
export type ScriptLanguage = 'lua' | 'prolog' | 'python';

/** Where a chunk comes from, for error locations. */
export interface ScriptSource {
  node?: string;
  field?: string;
  file?: string;
  /** Line offset of the chunk in the file: file line = `line` + chunk line (0 when it starts on line 1). */
  line?: number;
}

/**
 * Per-call limits every language understands. Implementations add their own memory budgets
 * (Lua: string sizes, table slots, pattern steps); each budget error names its budget in
 * `details.budget` and its limit in `details.limit`. A value that is not positive, finite and
 * under the implementation's ceiling is refused before any code runs.
 */
export interface ScriptBudget {
  /** Units of work per call: VM instructions (Lua), inferences (Prolog). */
  instructions?: number;
  /** Bytes of `print` output per call passed to `onPrint`; the rest is dropped. */
  printBytes?: number;
}

export interface ScriptRunOptions {
  budget?: ScriptBudget;
  /** Receives the script's printed lines. */
  onPrint?: (line: string) => void;
  /** The run's signal: when it aborts, the call ends with its reason (else a CANCELLED error). */
  signal?: AbortSignal;
  /** Called now and then while the script runs; what it throws ends the call (e.g. a duration budget). */
  interrupt?: () => void;
}

/** A chunk compiled (syntax-checked) at agent load, run many times, each call in a clean environment. */
export interface CompiledScript {
  readonly language: ScriptLanguage;
  readonly source: string;
  /**
   * Runs the chunk with `globals` (JSON) and returns its result as JSON. Throws coded errors only.
   * Lua and Prolog answer synchronously; Python, which runs in another thread or process, answers
   * with a promise (its failures are rejections with codes).
   */
  run(globals: Record<string, unknown>, options?: ScriptRunOptions): unknown;
}

/** The error codes a sandbox throws, one per kind of failure. */
export interface ScriptErrorCodes {
  readonly syntax: string;
  readonly runtime: string;
  readonly budget: string;
}

export interface ScriptSandbox {
  readonly language: ScriptLanguage;
  readonly errorCodes: ScriptErrorCodes;
  /** Compiles `code` now (syntax errors throw `errorCodes.syntax` with the line). */
  compile(code: string, where?: ScriptSource): CompiledScript;
  /**
   * Checks the agent's settings for this language (e.g. `settings.lua`) at load: throws an
   * INVALID_AGENT error naming the field for a budget it would refuse; returns the budget set.
   */
  budgetFromSettings(settings: unknown, where?: { file?: string }): ScriptBudget | undefined;
  /** Optional: what `validate` should warn about in a chunk that compiles (Python: host files, processes, imports the sandbox lacks). */
  warningsOf?(code: string): string[];
}

/** The sandboxes a host gives the engine, by language. A language left out cannot be used. */
export type ScriptSandboxes = Readonly<Partial<Record<ScriptLanguage, ScriptSandbox>>>;
