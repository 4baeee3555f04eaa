/**
 * The Prolog budgets (docs/prolog.md#sandbox): defaults, host ceilings, and `settings.prolog`.
 * Every budget counts work, never time; the sandbox's host loop enforces them, so no Prolog
 * handler (`catch/3`) can catch one. A value that is not a positive finite number under its
 * ceiling is refused: INVALID_AGENT at load (`settings.prolog.<key>`), INVALID_PARAMS per call.
 */
import { AgentError } from '../core/agent-error.js';

export interface PrologBudget {
  /** Inferences (resolution steps) per call: the seam's `instructions`, the unit of work. */
  instructions?: number;
  /** Term-traversal steps per call (unify, compare, print, copy): work done inside one built-in. */
  termWork?: number;
  /** Term nodes a call may build (copies, bindings applied): the memory budget of terms. */
  termCells?: number;
  /** Clauses a call may assert (program clauses included). */
  clauses?: number;
  /** Characters of one atom a built-in may build. */
  atomLength?: number;
  /** Elements of one list a built-in may build in one step (length/2, replicate/3). */
  listLength?: number;
  /** Goals and choice points alive at once: bounds the memory of deep recursion. */
  stackDepth?: number;
  /** Bytes of printed output passed to `onPrint`; the rest is dropped. */
  printBytes?: number;
}

export const DEFAULT_PROLOG_BUDGET: Readonly<Required<PrologBudget>> = Object.freeze({
  instructions: 100_000,
  termWork: 20_000_000,
  // tau keeps every state a call passes through (each holds its goal and bindings), so the cells
  // a call builds stay alive until it ends: this counts live memory. Measured at 145-310 bytes a
  // cell, states included (docs/prolog.md "Memory"): 200,000 cells stay under ~60 MB, which with
  // the rest of a run fits a 96 MB heap and a Workers isolate's 128 MB.
  termCells: 200_000,
  clauses: 100_000,
  atomLength: 1024 * 1024,
  listLength: 1_000_000,
  stackDepth: 100_000,
  printBytes: 64 * 1024,
});

export const PROLOG_BUDGET_CEILINGS: Readonly<Required<PrologBudget>> = Object.freeze({
  instructions: 100_000_000,
  termWork: 1_000_000_000,
  termCells: 50_000_000,
  clauses: 1_000_000,
  atomLength: 16 * 1024 * 1024,
  listLength: 10_000_000,
  stackDepth: 1_000_000,
  printBytes: 1024 * 1024,
});

const KEYS = Object.keys(DEFAULT_PROLOG_BUDGET) as (keyof PrologBudget)[];

function problemWith(key: keyof PrologBudget, value: unknown): string | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value))
    return `must be a finite number, got ${value === null ? 'null' : typeof value === 'number' ? String(value) : typeof value}`;
  if (value <= 0) return `must be positive, got ${value}`;
  if (value > PROLOG_BUDGET_CEILINGS[key])
    return `is over its ceiling of ${PROLOG_BUDGET_CEILINGS[key]} (got ${value})`;
  return undefined;
}

/** The budget for one call: defaults overridden by `budget`. Throws INVALID_PARAMS for a bad value. */
export function resolvePrologBudget(budget: PrologBudget | undefined): Required<PrologBudget> {
  const resolved = { ...DEFAULT_PROLOG_BUDGET };
  for (const key of KEYS) {
    const value = budget?.[key];
    if (value === undefined) continue;
    const problem = problemWith(key, value);
    if (problem !== undefined)
      throw new AgentError('INVALID_PARAMS', `the Prolog budget '${key}' ${problem}`, {
        details: { budget: key, ceiling: PROLOG_BUDGET_CEILINGS[key] },
      });
    resolved[key] = Math.floor(value);
  }
  return resolved;
}

/** Reads `settings.prolog` (any key of PrologBudget) at agent load; INVALID_AGENT names the field. */
export function prologBudgetFromSettings(settings: unknown, where: { file?: string } = {}): PrologBudget | undefined {
  if (typeof settings !== 'object' || settings === null) return undefined;
  const prolog = (settings as Record<string, unknown>).prolog;
  if (prolog === undefined || prolog === null) return undefined;
  if (typeof prolog !== 'object' || Array.isArray(prolog))
    throw new AgentError('INVALID_AGENT', '`settings.prolog` must be a mapping', {
      ...where,
      field: 'settings.prolog',
    });
  const budget: PrologBudget = {};
  for (const [key, value] of Object.entries(prolog)) {
    if (!KEYS.includes(key as keyof PrologBudget))
      throw new AgentError(
        'INVALID_AGENT',
        `\`settings.prolog.${key}\` is not a Prolog budget (known: ${KEYS.join(', ')})`,
        { ...where, field: `settings.prolog.${key}` },
      );
    const problem = problemWith(key as keyof PrologBudget, value);
    if (problem !== undefined)
      throw new AgentError('INVALID_AGENT', `\`settings.prolog.${key}\` ${problem}`, {
        ...where,
        field: `settings.prolog.${key}`,
      });
    budget[key as keyof PrologBudget] = value as number;
  }
  return budget;
}
