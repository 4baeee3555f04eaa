/**
 * compilePrologChunk: inline Prolog with TEA's semantics (docs/prolog.md#state-bridge), checked at
 * agent load, run many times, each call in a clean session.
 *
 * The chunk is read term by term, as TEA's `tea_load_code/1` does: `:- Goal` runs Goal; a rule
 * `Head :- Body` is asserted; a compound term whose name is not one of TEA's action predicates
 * (`state`, `return`, `,`, `is`, `findall`, …) is asserted as a fact; anything else is a query,
 * solved once. `state(Key, Value)` reads the state; `return(Key, Value)` sets the update.
 *
 * Outcomes: the chunk succeeds (every query had a solution), fails (a query had none; the run
 * stops there and the update holds the `return/2` calls made before, as in TEA), or raises an
 * error: PROLOG_ERROR for an uncaught Prolog exception (with the line of the term), PROLOG_BUDGET
 * for a spent budget (`details.budget`), PROLOG_SYNTAX at load with the file line.
 */
import { pl, type TauTerm } from '#prolog-vm';
import { AgentError } from '../core/agent-error.js';
import type { CompiledScript, ScriptRunOptions, ScriptSource } from '../core/script-sandbox.js';
import { resolvePrologBudget, type PrologBudget } from './prolog-budget.js';
import { createSession, PRELUDE_GOAL } from './prolog-session.js';
import { fromTerm } from './json-terms.js';
import { holdCells, PrologAsyncGoal, PrologThrown, solveOnce, type SolveControl } from './solve.js';
import { PrologBudgetExceeded, spendText, withCallMeter } from './tau-patches.js';
import { termText } from './term-text.js';
import { chunkTokens, goalOf, PrologSyntax, readingState, readTermAt, type ChunkTerm } from './tea-reading.js';
import { StateFacts } from './state-facts.js';
import { messageOf } from '../util/message-of.js';

/** Run options: the ScriptSandbox's, with the Prolog budgets. */
export interface PrologRunOptions extends Omit<ScriptRunOptions, 'budget'> {
  budget?: PrologBudget;
}

/** What one call ended with, when it did not raise. */
export interface PrologOutcome {
  /** false when a query had no solution. */
  succeeded: boolean;
  /** The `return/2` values, by key. */
  returns: Record<string, unknown>;
  /** The named variables of the last query or directive that succeeded, as JSON (prolog.query's answer). */
  bindings: Record<string, unknown>;
}

export interface CompiledProlog extends CompiledScript {
  /** Like `run`, but says whether the chunk succeeded or failed. */
  solve(globals: Record<string, unknown>, options?: PrologRunOptions): PrologOutcome;
}

/**
 * What a call needs of the text, read once: its tokens, and the terms as they read in a fresh
 * session, up to the first that only reads after an operator the chunk declares. A call uses a
 * copy of each of these terms as long as its session reads as a fresh one (no `op/3`,
 * `set_prolog_flag/2` on a reading flag so far), and reads the rest from the tokens itself.
 */
interface ReadText {
  tokens: unknown[];
  terms: ChunkTerm[];
  /** readingState of a fresh session. */
  fresh: string;
}

/** Compiles `code` now: a syntax error throws PROLOG_SYNTAX with the chunk and file line. */
export function compilePrologChunk(code: string, where: ScriptSource = {}): CompiledProlog {
  const { session, thread } = createSession({ facts: StateFacts.fromGlobals({}), returns: {}, print: () => {} });
  const fresh = readingState(session);
  const tokens = syntaxChecked(() => chunkTokens(code, thread), where);
  const terms: ChunkTerm[] = [];
  let reading = fresh;
  for (let index = 0; index < tokens.length; ) {
    const chunkTerm = syntaxChecked(() => readTermAt(tokens as any[], index, thread), where);
    if (reading === fresh) terms.push(chunkTerm);
    const term = chunkTerm.term;
    // Operators a directive declares change how the following terms read: apply them here too.
    if (term.indicator === ':-/1' && term.args[0].indicator === 'op/3') {
      solveOnce(thread, term.args[0], loadControl());
      reading = readingState(session);
    }
    index = chunkTerm.next;
  }
  return new PrologChunk(code, where, { tokens, terms, fresh });
}

function loadControl(): SolveControl {
  return {
    budget: resolvePrologBudget({ instructions: 1000 }),
    inferences: 0,
    work: 0,
    cells: 0,
    retained: 0,
    check: () => {},
  };
}

/** `read()`, with a syntax error as PROLOG_SYNTAX with its line. */
function syntaxChecked<T>(read: () => T, where: ScriptSource): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof PrologSyntax) throw syntaxError(error.message, error.line, where);
    throw error;
  }
}

function syntaxError(message: string, line: number | undefined, where: ScriptSource): AgentError {
  return new AgentError(
    'PROLOG_SYNTAX',
    `Prolog syntax error${line !== undefined ? ` on line ${line}` : ''}: ${message}`,
    {
      ...locationOf(where, line),
      details: line !== undefined ? { line } : {},
    },
  );
}

function locationOf(
  where: ScriptSource,
  line: number | undefined,
): { node?: string; field?: string; file?: string; line?: number } {
  return {
    ...(where.node !== undefined ? { node: where.node } : {}),
    ...(where.field !== undefined ? { field: where.field } : {}),
    ...(where.file !== undefined ? { file: where.file } : {}),
    ...(line !== undefined && where.line !== undefined ? { line: where.line + line } : {}),
  };
}

class PrologChunk implements CompiledProlog {
  readonly language = 'prolog';
  constructor(
    readonly source: string,
    private readonly where: ScriptSource,
    private readonly text: ReadText,
  ) {}

  run(globals: Record<string, unknown>, options: PrologRunOptions = {}): unknown {
    return this.solve(globals, options).returns;
  }

  solve(globals: Record<string, unknown>, options: PrologRunOptions = {}): PrologOutcome {
    const budget = resolvePrologBudget(options.budget);
    const check = () => {
      if (options.signal?.aborted) throw cancelled(options.signal);
      options.interrupt?.();
    };
    check();
    const returns: Record<string, unknown> = {};
    const printer = createPrinter(budget.printBytes, options.onPrint);
    const control: SolveControl = { budget, inferences: 0, work: 0, cells: 0, retained: 0, check };
    const facts = StateFacts.fromGlobals(globals, (cells) => holdCells(control, cells, true));
    const { session, thread } = createSession({ facts, returns, print: printer.print });
    const { tokens, terms, fresh } = this.text;
    let line: number | undefined;
    try {
      return withCallMeter(
        { budget, clauses: 0, holdCells: (cells, retained) => holdCells(control, cells, retained) },
        () => {
          solveOnce(thread, PRELUDE_GOAL, control);
          let answered: { goal: TauTerm; answer: unknown } | undefined;
          // Terms read at compile while the session reads as a fresh one; from the tokens after.
          let readsFresh = true;
          for (let index = 0, position = 0; index < tokens.length; position++) {
            const cached = readsFresh && position < terms.length ? terms[position]! : undefined;
            // A copy: tau marks the goals it runs (meta-predicate arguments, context module).
            const chunkTerm =
              cached !== undefined
                ? { ...cached, term: cached.term.clone() }
                : syntaxChecked(() => readTermAt(tokens as any[], index, thread), this.where);
            line = chunkTerm.line;
            const goal = goalOf(chunkTerm.term);
            const answer = solveOnce(thread, goal, control);
            if (answer === null) return { succeeded: false, returns, bindings: {} };
            index = chunkTerm.next;
            if (goal.indicator === 'assertz/1') continue;
            answered = { goal, answer };
            if (readsFresh && index < tokens.length) readsFresh = readingState(session) === fresh;
          }
          return {
            succeeded: true,
            returns,
            bindings: answered === undefined ? {} : namedBindings(answered.goal, answered.answer),
          };
        },
      );
    } catch (error) {
      throw this.toAgentError(error, line);
    } finally {
      printer.flush();
    }
  }

  private toAgentError(error: unknown, line: number | undefined): unknown {
    const location = locationOf(this.where, line);
    if (error instanceof PrologBudgetExceeded) {
      return new AgentError('PROLOG_BUDGET', `Prolog stopped: ${error.message}`, {
        ...location,
        details: { budget: error.budget, limit: error.limit, ...(line !== undefined ? { line } : {}) },
      });
    }
    if (error instanceof PrologThrown) {
      const text = termText(error.term);
      return new AgentError(
        'PROLOG_ERROR',
        `uncaught Prolog exception${line !== undefined ? ` in the term on line ${line}` : ''}: ${text}`,
        { ...location, details: { error: text, ...(line !== undefined ? { line } : {}) } },
      );
    }
    if (error instanceof PrologAsyncGoal) return new AgentError('PROLOG_ERROR', error.message, { ...location });
    if (isStackOverflow(error)) {
      // A term or list too deep for tau's recursive walks: a budget, whatever built it.
      return new AgentError(
        'PROLOG_BUDGET',
        'Prolog stopped: a term too deep for the engine (the JavaScript stack ran out)',
        { ...location, details: { budget: 'stackDepth', engine_stack: true, ...(line !== undefined ? { line } : {}) } },
      );
    }
    if (AgentError.isInstance(error)) return error;
    // A JavaScript exception inside tau (a host branch cut by the build, a tau bug): typed, never raw.
    return new AgentError('PROLOG_ERROR', `the Prolog engine failed: ${messageOf(error)}`, {
      ...location,
      cause: error,
    });
  }
}

/** V8's and JavaScriptCore's RangeError, SpiderMonkey's InternalError. */
function isStackOverflow(error: unknown): boolean {
  return (
    error instanceof Error &&
    (error.name === 'RangeError' || error.name === 'InternalError') &&
    /call stack|too much recursion/i.test(error.message)
  );
}

/** The values of the goal's named variables (not `_`-prefixed) in an answer's substitution. */
function namedBindings(goal: TauTerm, substitution: any): Record<string, unknown> {
  const bindings: Record<string, unknown> = {};
  for (const name of goal.variables() as string[]) {
    if (name.startsWith('_')) continue;
    const value = substitution.links[name];
    // Variables the answer leaves unbound (a findall template's) are not part of it.
    if (value === undefined || pl.type.is_variable(value)) continue;
    bindings[name] = fromTerm(value);
  }
  return bindings;
}

function cancelled(signal: AbortSignal): unknown {
  const reason = signal.reason;
  if (reason instanceof Error && typeof (reason as { code?: unknown }).code === 'string') return reason;
  return new AgentError('CANCELLED', 'the run was cancelled while Prolog ran');
}

/** Printed text → lines for `onPrint`, at most `limit` bytes (characters) in all. */
function createPrinter(limit: number, onPrint: ((line: string) => void) | undefined) {
  let pending = '';
  let used = 0;
  return {
    print(text: string) {
      spendText(text.length); // written text is work even past printBytes, where it is dropped
      if (onPrint === undefined || used >= limit) return;
      const kept = text.slice(0, limit - used);
      used += kept.length;
      pending += kept;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) onPrint(line);
    },
    flush() {
      if (onPrint !== undefined && pending !== '') onPrint(pending);
      pending = '';
    },
  };
}
