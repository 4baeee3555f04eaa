/**
 * The memory budget holds in a real process with a small heap: each hostile Prolog agent, run by
 * the built CLI under `--max-old-space-size=96` (less than a Workers isolate's 128 MB), ends with
 * PROLOG_BUDGET (exit 1), never with the heap exhausted (exit 134). Before the term-cell default
 * was measured against tau's retention, three of the five crashed Node this way.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.js';
import { compilePrologChunk } from '../../src/prolog/compile-prolog.js';

const HOSTILE = [
  'hostile-assert-flood',
  'hostile-catch-loop',
  'hostile-deep-unify',
  'hostile-huge-term',
  'hostile-recursion',
];

describe('Prolog under a 96 MB heap', () => {
  for (const name of HOSTILE) {
    it(`${name} ends with PROLOG_BUDGET, not out of memory`, { timeout: 60_000 }, async () => {
      const outcome = await runCli(['run', path.join('tests/prolog/corpus', `${name}.yaml`)], {
        NODE_OPTIONS: '--max-old-space-size=96',
      });
      expect(outcome.stderr).not.toContain('heap out of memory');
      expect({ code: outcome.code, budget: /PROLOG_BUDGET/.test(outcome.stderr) }).toEqual({ code: 1, budget: true });
    });
  }
});

describe('termCells counts live memory', () => {
  const budget = { termCells: 20_000, termWork: 1_000_000_000, instructions: 5_000_000 };
  const run = (code: string) => compilePrologChunk(code).solve({}, { budget }).returns;

  it('backtracking gives back what the failed branches built: a search far over the budget in total completes', () => {
    // ~90,000 branches, each building a few cells that die when it fails.
    expect(
      run('findall(X-Y, (between(1, 300, X), between(1, 300, Y), X * Y =:= 3600), L), length(L, N), return(n, N).'),
    ).toEqual({ n: 27 });
  });

  it('what outlives backtracking still counts: findall solutions, asserted clauses, built atoms', () => {
    for (const code of [
      'findall(L, (between(1, 100000, _), length(L, 50)), _).',
      '( between(1, 100000, I), length(L, 30), assertz(big(I, L)), fail ; true ).',
      'big(0, x) :- !.\nbig(N, A) :- N1 is N - 1, big(N1, B), atom_concat(B, B, A).\n:- big(17, A), ( between(1, 400, I), number_codes(I, Cs), atom_codes(S, Cs), atom_concat(A, S, C), assertz(keep(C)), fail ; true ).',
    ]) {
      expect(() => run(code), code).toThrow(
        expect.objectContaining({ code: 'PROLOG_BUDGET', details: expect.objectContaining({ budget: 'termCells' }) }),
      );
    }
  });
});
