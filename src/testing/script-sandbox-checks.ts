/**
 * The ScriptSandbox conformance checks (src/core/script-sandbox.ts), runtime-neutral: plain
 * functions that throw on a failed check, so the same list runs under vitest in Node
 * (script-sandbox-conformance.ts) and bundled into workerd and Chromium. A language supplies a
 * fixture: the few scripts the checks need, written in that language.
 */
import type { ScriptBudget, ScriptSandbox } from '../core/script-sandbox.js';
import { AgentError } from '../core/agent-error.js';

/** The scripts a language provides for the checks. Each is a chunk whose result is its return value. */
export interface ScriptSandboxFixture {
  /** Returns the global `input` unchanged. */
  echo: string;
  /** Returns the global `a` plus the global `b` (numbers). */
  add: string;
  /** A chunk with a syntax error on chunk line `line`. */
  syntaxError: { code: string; line: number };
  /** Raises an error with the text `boom` on chunk line `line`. */
  runtimeError: { code: string; line: number };
  /** Returns a value with no JSON form (a function). */
  notJson: string;
  /** Loops forever. */
  endlessLoop: string;
  /** Loops forever, running the loop inside the language's protected call, and again on failure. */
  catchingLoop: string;
  /** Allocates without end; fails with `memoryBudget` naming `memoryBudgetName` in `details.budget`. */
  memoryHog: string;
  memoryBudget: ScriptBudget;
  memoryBudgetName: string;
  /** Prints `hello`, then loops forever. */
  printThenLoop: string;
  /** Prints the line `0123456789` 1,000 times. */
  printMany: string;
  /** Returns the global `leaked` (null when unset), then sets it to 1 and replaces a standard function. */
  leakAndTamper: string;
  /** Returns whether the standard function `leakAndTamper` replaces is still the original. */
  standardIntact: string;
  /** Raises an error whose text is about 1 MB. */
  hugeError: string;
  /** Scripts over the global `state` (LAZY_VIEW_STATE): what the sandbox converts as the script reads it. */
  stateReads: StateReadsFixture;
  /**
   * Text work (issue 24): `loop` reads a text of over 500,000 characters again and again forever;
   * `toList` turns such a text into a list of its characters. Both must end with the budget
   * error (`loopBudget` / `listBudget` in `details.budget`), never a runtime error or a stack
   * overflow. Only Prolog gives them so far (the Lua sandbox was not attacked this way).
   */
  longText?: { loop: string; loopBudget: string; toList: string; listBudget: string };
  /**
   * The chunk's value in what `run` returns, when the language returns it inside an update
   * (Prolog's `return(result, V)` gives `{result: V}`); identity when absent.
   */
  resultValue?: (result: unknown) => unknown;
}

/**
 * A sandbox may convert `state` as the script reads it (Lua's lazy tables, Prolog's state/2):
 * these scripts show it behaves as if all of it had been converted first, and that budgets are
 * charged for what is read. Each returns its value as `echo` does.
 */
export interface StateReadsFixture {
  /** Reads `state.mid` first, then returns the keys of `state` in the order the language enumerates them. */
  keys: string;
  /** Reads the second item of `state.list`, then returns how many items it has. */
  length: string;
  /** Reads `state.mid.inner.leaf` twice (through nested values) and returns both: `[leaf, leaf]`. */
  twice: string;
  /** Changes `x` of the value read from `state.mid` to 99 as far as the script can, then returns `{seen: <x it now sees>, alpha: state.alpha}`. */
  mutation: string;
  /** Returns `state.small`. */
  readSmall: string;
  /** Reads all of `state.big` (3,000 numbers: what the language converts when it is read whole) and returns its first item. */
  readBig: string;
  /** A budget `readBig` exceeds (naming `readBudgetName`) while `readSmall` fits it. */
  readBudget: ScriptBudget;
  readBudgetName: string;
}

/** The state the lazy-view checks pass. */
export function lazyViewState(): Record<string, unknown> {
  return {
    zeta: 1,
    alpha: 'a',
    mid: { x: 1, inner: { leaf: 'deep' }, y: [1, 2] },
    list: [10, 20, 30, 40],
    small: 5,
    big: Array.from({ length: 3_000 }, (_, index) => index),
    last: null,
  };
}

function resultOf(fixture: ScriptSandboxFixture, result: unknown): unknown {
  return fixture.resultValue === undefined ? result : fixture.resultValue(result);
}

export interface ScriptSandboxCheck {
  name: string;
  run(sandbox: ScriptSandbox, fixture: ScriptSandboxFixture): void;
}

class CheckFailed extends Error {}

function check(condition: boolean, message: string): void {
  if (!condition) throw new CheckFailed(message);
}

/** What `run` threw; fails the check when it returned instead. */
function thrown(
  run: () => unknown,
  what: string,
): { code?: unknown; message: string; details?: Record<string, unknown>; location?: { line?: number } } {
  let result: unknown;
  try {
    result = run();
  } catch (error) {
    check(typeof error === 'object' && error !== null, `${what}: threw a non-object ${String(error)}`);
    return error as { code?: unknown; message: string };
  }
  throw new CheckFailed(`${what}: expected an error, got ${JSON.stringify(result)}`);
}

/** JSON with sorted keys: equal values give equal text whatever the key order. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : 1)))
      : inner,
  );
}

function equal(actual: unknown, expected: unknown, what: string): void {
  check(
    canonical(actual) === canonical(expected),
    `${what}: expected ${canonical(expected)}, got ${canonical(actual)}`,
  );
}

/** Runs `code` with a large instruction budget and an interrupt that throws TIMEOUT on its third call. */
function interruptedAtThirdCall(
  sandbox: ScriptSandbox,
  code: string,
  what: string,
): { error: ReturnType<typeof thrown>; calls: number } {
  let calls = 0;
  const interrupt = () => {
    calls += 1;
    if (calls === 3) throw new AgentError('TIMEOUT', 'host deadline');
  };
  const error = thrown(() => sandbox.compile(code).run({}, { budget: { instructions: 50_000_000 }, interrupt }), what);
  return { error, calls };
}

// Under every sandbox's default memory budget (a Prolog step keeps ~3 term cells alive: 200,000 cells).
const SMALL_INSTRUCTIONS: ScriptBudget = { instructions: 50_000 };

export const SCRIPT_SANDBOX_CHECKS: ReadonlyArray<ScriptSandboxCheck> = [
  {
    name: 'syntax errors are caught at compile, with the chunk line and the file line',
    run(sandbox, fixture) {
      const error = thrown(
        () => sandbox.compile(fixture.syntaxError.code, { node: 'n', field: 'run', file: 'agent.yaml', line: 10 }),
        'compile',
      );
      equal(error.code, sandbox.errorCodes.syntax, 'code');
      equal(error.details?.line, fixture.syntaxError.line, 'details.line');
      equal(error.location?.line, 10 + fixture.syntaxError.line, 'location.line (offset + chunk line)');
    },
  },
  {
    name: 'globals go in as JSON and the result comes out as JSON',
    run(sandbox, fixture) {
      const input = {
        text: 'héllo ✓',
        count: 3,
        ratio: 0.25,
        yes: true,
        no: false,
        nothing: null,
        list: [1, 'two', [3], { four: 4 }],
        nested: { deep: { deeper: ['x'] } },
        empty_list: [],
        empty_object: {},
      };
      const script = sandbox.compile(fixture.echo);
      equal(script.language, sandbox.language, 'compiled language');
      equal(script.source, fixture.echo, 'compiled source');
      equal(resultOf(fixture, script.run({ input })), input, 'echo');
      const add = sandbox.compile(fixture.add);
      equal(resultOf(fixture, add.run({ a: 2, b: 3 })), 5, 'first call');
      equal(resultOf(fixture, add.run({ a: 40, b: 2 })), 42, 'second call of the same chunk');
    },
  },
  {
    name: 'runtime errors and results with no JSON form are typed errors, never raw exceptions',
    run(sandbox, fixture) {
      const error = thrown(() => sandbox.compile(fixture.runtimeError.code).run({}), 'runtime error');
      equal(error.code, sandbox.errorCodes.runtime, 'code');
      equal(error.details?.line, fixture.runtimeError.line, 'details.line');
      check(error.message.includes('boom'), `message keeps the script's text: ${error.message}`);
      equal(
        thrown(() => sandbox.compile(fixture.notJson).run({}), 'function result').code,
        sandbox.errorCodes.runtime,
        'code of a non-JSON result',
      );
    },
  },
  {
    name: 'the instruction budget ends an endless loop',
    run(sandbox, fixture) {
      const error = thrown(
        () => sandbox.compile(fixture.endlessLoop).run({}, { budget: SMALL_INSTRUCTIONS }),
        'endless loop',
      );
      equal(error.code, sandbox.errorCodes.budget, 'code');
      equal(error.details?.budget, 'instructions', 'details.budget');
    },
  },
  {
    name: 'a budget error cannot be caught by the script',
    run(sandbox, fixture) {
      const error = thrown(
        () => sandbox.compile(fixture.catchingLoop).run({}, { budget: SMALL_INSTRUCTIONS }),
        'catching loop',
      );
      equal(error.code, sandbox.errorCodes.budget, 'code');
      equal(error.details?.budget, 'instructions', 'details.budget');
    },
  },
  {
    name: 'the memory budget ends unbounded allocation',
    run(sandbox, fixture) {
      const error = thrown(
        () => sandbox.compile(fixture.memoryHog).run({}, { budget: fixture.memoryBudget }),
        'memory hog',
      );
      equal(error.code, sandbox.errorCodes.budget, 'code');
      equal(error.details?.budget, fixture.memoryBudgetName, 'details.budget');
    },
  },
  {
    name: 'a budget that is not positive, finite and under its ceiling is refused before the script runs',
    run(sandbox, fixture) {
      const script = sandbox.compile(fixture.printThenLoop);
      for (const instructions of [-1, 0, Number.POSITIVE_INFINITY, Number.NaN, 1e15]) {
        const printed: string[] = [];
        const error = thrown(
          () => script.run({}, { budget: { instructions }, onPrint: (line) => printed.push(line) }),
          `instructions ${instructions}`,
        );
        check(
          typeof error.code === 'string' && error.code !== sandbox.errorCodes.budget,
          `instructions ${instructions}: refused with a code, got ${String(error.code)}`,
        );
        equal(printed, [], `nothing ran with instructions ${instructions}`);
      }
    },
  },
  {
    name: 'an aborted signal ends the call with its reason; an already aborted one runs nothing',
    run(sandbox, fixture) {
      const script = sandbox.compile(fixture.printThenLoop);
      const before = new AbortController();
      before.abort(new AgentError('CANCELLED', 'stopped before'));
      const printed: string[] = [];
      const early = thrown(
        () => script.run({}, { signal: before.signal, onPrint: (line) => printed.push(line) }),
        'already aborted',
      );
      equal(early.code, 'CANCELLED', 'code');
      equal(printed, [], 'nothing ran');
      // Lua runs synchronously: the abort comes from something the call triggers (its print).
      const during = new AbortController();
      const late = thrown(
        () =>
          script.run(
            {},
            {
              signal: during.signal,
              budget: { instructions: 50_000_000 },
              onPrint: () => during.abort(new AgentError('BUDGET_EXCEEDED', 'deadline')),
            },
          ),
        'aborted while running',
      );
      equal(late.code, 'BUDGET_EXCEEDED', 'the reason ends the call');
    },
  },
  {
    name: 'what interrupt throws ends the call, and the script cannot catch it',
    run(sandbox, fixture) {
      for (const code of [fixture.endlessLoop, fixture.catchingLoop]) {
        const { error, calls } = interruptedAtThirdCall(sandbox, code, 'interrupted');
        equal(error.code, 'TIMEOUT', 'code');
        equal(calls, 3, 'interrupt calls');
      }
    },
  },
  {
    name: 'text work is metered: a loop over a long text ends with the budget error, interrupt runs within its work',
    run(sandbox, fixture) {
      const text = fixture.longText;
      if (text === undefined) return; // the fixture's comment says which languages give none
      const loop = thrown(() => sandbox.compile(text.loop).run({}), 'text loop');
      equal(loop.code, sandbox.errorCodes.budget, 'code of the text loop');
      equal(loop.details?.budget, text.loopBudget, 'details.budget of the text loop');
      const list = thrown(() => sandbox.compile(text.toList).run({}), 'text to list');
      equal(list.code, sandbox.errorCodes.budget, 'code of the text to list');
      equal(list.details?.budget, text.listBudget, 'details.budget of the text to list');
      // Under the default work budget the loop ends long before 3 × 512 inferences: the interrupt
      // gets there only if it is called as the work grows.
      equal(
        interruptedAtThirdCall(sandbox, text.loop, 'interrupted text loop').error.code,
        'TIMEOUT',
        'code of the interrupted text loop',
      );
    },
  },
  {
    name: 'every call starts from a clean environment',
    run(sandbox, fixture) {
      const tamper = sandbox.compile(fixture.leakAndTamper);
      equal(resultOf(fixture, tamper.run({})), null, 'first call sees no leaked global');
      equal(resultOf(fixture, tamper.run({})), null, 'second call of the same chunk sees none either');
      equal(
        resultOf(fixture, sandbox.compile(fixture.standardIntact).run({})),
        true,
        'another chunk sees the standard function intact',
      );
      equal(resultOf(fixture, tamper.run({ leaked: 7 })), 7, 'a global passed in is seen');
      equal(resultOf(fixture, tamper.run({})), null, 'and is gone on the next call');
    },
  },
  {
    name: 'print goes to onPrint, capped at printBytes',
    run(sandbox, fixture) {
      const lines: string[] = [];
      sandbox.compile(fixture.printMany).run({}, { budget: { printBytes: 1000 }, onPrint: (line) => lines.push(line) });
      const bytes = lines.reduce((total, line) => total + line.length, 0);
      check(lines[0] === '0123456789', `first line: ${JSON.stringify(lines[0])}`);
      check(bytes > 0 && bytes <= 1000, `printed ${bytes} bytes with printBytes 1000`);
    },
  },
  {
    name: 'error text is capped',
    run(sandbox, fixture) {
      const error = thrown(() => sandbox.compile(fixture.hugeError).run({}), 'huge error');
      equal(error.code, sandbox.errorCodes.runtime, 'code');
      check(error.message.length <= 4096, `message of ${error.message.length} characters`);
      check(/cut/.test(error.message), 'says that it was cut');
    },
  },
  {
    name: 'state read lazily: key order, length, nested values read twice',
    run(sandbox, fixture) {
      const state = lazyViewState();
      const reads = fixture.stateReads;
      check(
        JSON.stringify(resultOf(fixture, sandbox.compile(reads.keys).run({ state }))) ===
          JSON.stringify(Object.keys(state)),
        'keys in the order of the value',
      );
      equal(resultOf(fixture, sandbox.compile(reads.length).run({ state })), 4, 'length of state.list');
      equal(
        resultOf(fixture, sandbox.compile(reads.twice).run({ state })),
        ['deep', 'deep'],
        'a nested value read twice',
      );
      equal(state, lazyViewState(), 'the host state is unchanged');
    },
  },
  {
    name: 'state read lazily: a changed value stays in the call, the host state is never written',
    run(sandbox, fixture) {
      const state = lazyViewState();
      const script = sandbox.compile(fixture.stateReads.mutation);
      equal(resultOf(fixture, script.run({ state })), { seen: 99, alpha: 'a' }, 'first call');
      equal(
        resultOf(fixture, script.run({ state })),
        { seen: 99, alpha: 'a' },
        'second call starts from the state again',
      );
      equal(state, lazyViewState(), 'the host state is unchanged');
    },
  },
  {
    name: 'state read lazily: budgets are charged for what is read, and only that',
    run(sandbox, fixture) {
      const state = lazyViewState();
      const reads = fixture.stateReads;
      equal(
        resultOf(fixture, sandbox.compile(reads.readSmall).run({ state }, { budget: reads.readBudget })),
        5,
        'a small read fits the budget',
      );
      equal(
        resultOf(fixture, sandbox.compile(reads.readBig).run({ state })),
        0,
        'the big read under the default budget',
      );
      const error = thrown(
        () => sandbox.compile(reads.readBig).run({ state }, { budget: reads.readBudget }),
        'big read',
      );
      equal(error.code, sandbox.errorCodes.budget, 'code');
      equal(error.details?.budget, reads.readBudgetName, 'details.budget');
    },
  },
];

/** Runs every check; for runtimes without vitest (workerd, Chromium). */
export function runScriptSandboxChecks(
  sandbox: ScriptSandbox,
  fixture: ScriptSandboxFixture,
): Array<{ name: string; error?: string }> {
  return SCRIPT_SANDBOX_CHECKS.map((entry) => {
    try {
      entry.run(sandbox, fixture);
      return { name: entry.name };
    } catch (error) {
      return { name: entry.name, error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
    }
  });
}
