/**
 * Text work in the Prolog sandbox (issue 24 cause 1): every built-in that reads or builds text
 * charges its characters to the work meter before it runs, so a failure-driven loop over a
 * 512,000-character atom ends with PROLOG_BUDGET instead of holding the event loop for minutes;
 * lists built from text count against the cell budget; a stack overflow inside the engine is
 * PROLOG_BUDGET; and the signal and interrupt are checked by work done, not only every 512
 * inferences. The same loop runs in workerd, Chromium and Deno through the conformance checks
 * (src/testing/script-sandbox-checks.ts, `longText`).
 */
import { describe, expect, it } from 'vitest';
import { AgentError } from '../../src/core/agent-error.js';
import { PROLOG_BUDGET_CEILINGS, type PrologBudget } from '../../src/prolog/prolog-budget.js';
import { compilePrologChunk } from '../../src/prolog/compile-prolog.js';

/** `A` is an atom of exactly 512,000 characters (doubled to 524,288, then cut). */
const LONG =
  'double(0, a) :- !.\ndouble(N, X) :- N1 is N - 1, double(N1, Y), atom_concat(Y, Y, X).\nlong(A) :- double(19, D), sub_atom(D, 0, 512000, _, A).\n';

function failure(code: string, budget: PrologBudget = {}, interrupt?: () => void): AgentError {
  try {
    compilePrologChunk(code).run({}, { budget, ...(interrupt !== undefined ? { interrupt } : {}) });
  } catch (error) {
    if (AgentError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('the chunk ended without an error');
}

/** Each reads or builds the whole of `A` (SWI's string predicates are their atom counterparts here). */
const TEXT_GOALS = [
  'atom_length(A, _)',
  'string_length(A, _)',
  'upcase_atom(A, _)',
  'downcase_atom(A, _)',
  'string_upper(A, _)',
  'string_lower(A, _)',
  'sub_atom(A, 0, 1, _, _)',
  'sub_atom(A, _, 1, 0, _)',
  'atom_concat(A, b, _)',
  'atom_concat(_, b, A)',
  'atomic_concat(A, b, _)',
  'atomic_list_concat([A, b], _)',
  'atomic_list_concat([A, b], -, _)',
  'term_to_atom(A, _)',
  'term_to_atom(f(A), _)',
  'term_string(_, A)',
  "format(atom(_), '~a', [A])",
  'write(A)',
  'writeq(A)',
  'catch(number_string(_, A), _, true)',
  'atom_string(A, S), string_length(S, _)',
];

describe('text built-ins are metered', () => {
  it.each(TEXT_GOALS)('a failure-driven loop of %s over a 512,000-character atom ends with PROLOG_BUDGET', (goal) => {
    const error = failure(`${LONG}:- long(A), ( repeat, ${goal}, fail ; true ).`);
    expect(error.code, error.message).toBe('PROLOG_BUDGET');
    expect(['termWork', 'termCells']).toContain(error.details.budget);
  });

  it('lists built from text are held to the cell budget: atom_codes and atom_chars on it are PROLOG_BUDGET termCells', () => {
    for (const goal of ['atom_codes(A, L)', 'atom_chars(A, L)', 'string_codes(A, L)', 'string_chars(A, L)']) {
      const error = failure(`${LONG}:- long(A), ${goal}, length(L, N), return(n, N).`);
      expect(error.code, goal).toBe('PROLOG_BUDGET');
      expect(error.details.budget, goal).toBe('termCells');
    }
  });

  it('enumerating the splits or substrings of a long atom is a budget stop, not a hang', () => {
    expect(failure(`${LONG}:- long(A), ( atom_concat(_, _, A), fail ; true ).`).code).toBe('PROLOG_BUDGET');
    expect(failure(`${LONG}:- long(A), ( sub_atom(A, _, _, 0, _), fail ; true ).`).code).toBe('PROLOG_BUDGET');
    expect(
      failure(
        'double(0, a) :- !.\ndouble(N, X) :- N1 is N - 1, double(N1, Y), atom_concat(Y, Y, X).\n:- double(12, A), ( sub_atom(A, _, _, _, _), fail ; true ).',
      ).code,
    ).toBe('PROLOG_BUDGET');
  });

  it('a stack overflow inside the engine is PROLOG_BUDGET, never PROLOG_ERROR, whatever budgets the host allows', () => {
    const ceilings = {
      termCells: PROLOG_BUDGET_CEILINGS.termCells,
      termWork: PROLOG_BUDGET_CEILINGS.termWork,
      atomLength: PROLOG_BUDGET_CEILINGS.atomLength,
      listLength: PROLOG_BUDGET_CEILINGS.listLength,
    };
    const error = failure(`${LONG}:- long(A), atom_codes(A, L), length(L, N), return(n, N).`, ceilings);
    expect(error.code, error.message).toBe('PROLOG_BUDGET');
  });

  it('checks the interrupt by work done: fifty reads of the atom in under 512 inferences call it many times', () => {
    let calls = 0;
    const outcome = compilePrologChunk(
      `${LONG}:- long(A), ( between(1, 50, _), atom_length(A, _), fail ; true ).`,
    ).solve({}, { budget: { termWork: PROLOG_BUDGET_CEILINGS.termWork }, interrupt: () => void calls++ });
    expect(outcome.succeeded).toBe(true);
    // The loop takes fewer than 512 inferences, so every call but the first came from the work meter:
    // at least one per read of the atom (a built-in's charge is checked when it is made).
    expect(calls).toBeGreaterThanOrEqual(50);
  });

  it('an interrupt thrown from inside that work ends the call with its error', () => {
    let calls = 0;
    const error = failure(
      `${LONG}:- long(A), ( repeat, atom_length(A, _), fail ; true ).`,
      { instructions: 50_000_000, termWork: PROLOG_BUDGET_CEILINGS.termWork },
      () => {
        if (++calls === 10) throw new AgentError('TIMEOUT', 'host deadline');
      },
    );
    expect(error.code).toBe('TIMEOUT');
  });

  it('gives the same answers on ordinary text as before the meters (same output on main)', () => {
    const outcome = compilePrologChunk(
      "atom_codes(abc, C), atom_chars(abc, Ch), atom_length('héllo', L), upcase_atom(abc, U), sub_atom(hello, 1, 3, After, Sub), findall(X-Y, atom_concat(X, Y, ab), Splits), findall(S, sub_atom(ab, _, _, _, S), Subs), term_to_atom(f(X1, 'a b'), T), term_to_atom(Back, 'g(1, [x])'), atomic_list_concat([a, 1, b], '-', J), format(atom(F), '~a=~d', [k, 3]), return(r, [C, Ch, L, U, After, Sub, Splits, Subs, T, Back, J, F]).",
    ).run({});
    expect(outcome).toEqual({
      r: [
        [97, 98, 99],
        ['a', 'b', 'c'],
        5,
        'ABC',
        1,
        'ell',
        ["''-ab", 'a-b', "ab-''"],
        ['', 'a', 'ab', '', 'b', ''],
        "f(X1,'a b')",
        'g(1,[x])',
        'a-1-b',
        'k=3',
      ],
    });
  });
});
