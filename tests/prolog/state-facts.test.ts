/**
 * state/2 read as the goal asks (src/prolog/state-facts.ts) and the chunk's terms read once
 * (compile-prolog.ts): the answers are those of one static fact per key, a key is converted once
 * per call and charged to the memory budget, and a chunk that changes how text reads (op/3,
 * double_quotes) reads its later terms as before, call after call.
 */
import { describe, expect, it } from 'vitest';
import { AgentError } from '../../src/core/agent-error.js';
import { compilePrologChunk } from '../../src/prolog/compile-prolog.js';

const STATE = { i: 1, j: 'text', m: { a: 1, b: [1, 2] }, output: 'shadowed', u: undefined };
const GLOBALS = { state: STATE, output: 'out', iteration: 3, variables: { hidden: true } };

function result(code: string, globals: Record<string, unknown> = GLOBALS, budget = {}): unknown {
  return (compilePrologChunk(code).run(globals, { budget }) as { r?: unknown }).r;
}

function budgetError(code: string, globals: Record<string, unknown>, budget: Record<string, number>): AgentError {
  try {
    compilePrologChunk(code).run(globals, { budget });
  } catch (error) {
    if (AgentError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected PROLOG_BUDGET');
}

describe('state/2', () => {
  it('answers one fact per key, in order: the state, then the other globals but variables', () => {
    expect(result('findall(K-V, state(K, V), L), return(r, L).')).toEqual([
      'i-1',
      'j-text',
      'm-json([a=1,b=[1,2]])',
      'output-out',
      'u-null',
      'iteration-3',
    ]);
    expect(result('findall(K, state(K, 1), L), return(r, L).')).toEqual(['i']);
    expect(result('(state(K, K) -> R = K ; R = none), return(r, R).')).toBe('none');
    expect(result('(state(variables, _) -> R = yes ; R = no), return(r, R).')).toBe('no');
  });

  it('fails for a key it does not have, or one that is not an atom', () => {
    expect(result('(state(missing, _) -> R = yes ; R = no), return(r, R).')).toBe('no');
    expect(result('(state(1, _) -> R = yes ; R = no), return(r, R).', { state: { '1': 'one' } })).toBe('no');
    expect(result("(state('1', V) -> R = V ; R = no), return(r, R).", { state: { '1': 'one' } })).toBe('one');
    expect(result('(state(f(x), _) -> R = yes ; R = no), return(r, R).')).toBe('no');
    expect(result('(state(_, _) -> R = yes ; R = no), return(r, R).', { state: {} })).toBe('no');
  });

  it('stays a static, private predicate: no assert, retract or clause on it', () => {
    for (const goal of ['assertz(state(z, 1))', 'retract(state(i, _))', 'clause(state(_, _), _)', 'abolish(state/2)']) {
      expect(String(result(`catch(${goal}, error(E, _), true), return(r, E).`))).toMatch(/^permission_error/);
    }
  });

  it('converts a key once per call, charged to termCells; other keys cost nothing', () => {
    const big = Object.fromEntries(Array.from({ length: 5_000 }, (_, index) => [`k${index}`, index]));
    const globals = { state: { small: 1, big } };
    // The object is ~20,000 cells: read twice it would be twice that, over the budget.
    const budget = { termCells: 30_000 };
    expect(result('state(big, A), state(big, B), state(big, C), return(r, ok).', globals, budget)).toBe('ok');
    expect(result('state(small, S), return(r, S).', globals, { termCells: 1_000 })).toBe(1);
    const error = budgetError('state(big, _).', globals, { termCells: 15_000 });
    expect(error.code).toBe('PROLOG_BUDGET');
    expect(error.details.budget).toBe('termCells');
  });
});

describe('the chunk read once', () => {
  it('reads terms after an operator or flag a directive sets as before, on every call', () => {
    const operator = compilePrologChunk(':- op(700, xfx, ===>).\nX = (a ===> b), X = (_ ===> Y), return(r, Y).');
    const quotes = compilePrologChunk(':- set_prolog_flag(double_quotes, codes).\nX = "ab", return(r, X).');
    const plain = compilePrologChunk('X = "ab", return(r, X).');
    for (let call = 0; call < 2; call++) {
      expect(operator.run({})).toEqual({ r: 'b' });
      expect(quotes.run({})).toEqual({ r: [97, 98] });
      expect(plain.run({})).toEqual({ r: 'ab' });
    }
  });

  it('gives each call fresh terms: what tau marks on the goals it runs does not carry over', () => {
    const chunk = compilePrologChunk(
      'catch(findall(X, nope(X), _), error(E, _), true), findall(Y, member(Y, [1, 2]), L), return(r, [E, L]).',
    );
    const first = chunk.run({});
    expect(first).toEqual({ r: ['existence_error(procedure,nope/1)', [1, 2]] });
    expect(chunk.run({})).toEqual(first);
  });
});
