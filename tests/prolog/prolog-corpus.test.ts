/**
 * The Prolog corpus in Node: TEA's state bridge, failure vs error, the three neurosymbolic
 * examples, and hostile Prolog (recursion, catch/3 around a loop, assert flood, huge atoms, deep
 * shared terms) ending with PROLOG_BUDGET while the host keeps serving.
 */
import { describe, expect, it } from 'vitest';
import { readPrologCorpus } from './corpus-agents.js';
import { runPrologCorpus, type CorpusOutcome } from './prolog-corpus.js';

describe('Prolog corpus (Node)', () => {
  it('gives the expected outcome for every agent', async () => {
    const outcomes = await runPrologCorpus(readPrologCorpus());
    const byName = Object.fromEntries(outcomes.map((outcome) => [outcome.name, outcome])) as Record<
      string,
      CorpusOutcome
    >;
    expect(byName['tea-state-bridge']).toMatchObject({
      status: 'completed',
      state: {
        doubled: 10,
        squared: 25,
        sorted: [1, 2, 3],
        total: 6,
        count: 3,
        name_length: 5,
        city: 'Porto',
        has_even: true,
        ratio: 0.5,
        nothing: null,
        summary: { count: 3, empty: [], nested: {} },
        reachable: ['b', 'c', 'd'],
      },
    });
    expect(byName['tea-swi-builtins']).toMatchObject({
      status: 'completed',
      state: {
        pairs: ['ann-cid'],
        why: 'cid is 7, grandchild of ann (12.50 m)',
        distance: 12.5,
        sensor: 'lidar',
        flagged: 'none',
      },
    });
    expect(byName['tea-failing-goal']).toMatchObject({ status: 'completed', error: null, state: { checked: true } });
    expect(byName['tea-failing-goal']!.state).not.toHaveProperty('adult');
    expect(byName['tea-prolog-error']).toMatchObject({ status: 'failed', error: 'PROLOG_ERROR' });
    expect(byName['prolog-family-reasoning']).toMatchObject({
      status: 'completed',
      state: { descendants_of_tom: ['bob', 'ann', 'liz', 'joe'], grandparents_of_joe: ['bob'] },
    });
    expect(byName['prolog-classifier-rules']).toMatchObject({ status: 'completed', state: { route: 'auto_refund' } });
    expect(byName['prolog-schedule-check']).toMatchObject({
      status: 'completed',
      state: {
        verdict: {
          success: true,
          bindings: [{ Violations: ["'late call'-outside_office_hours", 'review-overlaps(standup)'], Valid: false }],
        },
      },
    });
    const hostile = outcomes.filter((outcome) => outcome.name.startsWith('hostile-'));
    expect(hostile.map((outcome) => outcome.name)).toEqual([
      'hostile-assert-flood',
      'hostile-catch-loop',
      'hostile-deep-unify',
      'hostile-huge-term',
      'hostile-recursion',
    ]);
    for (const outcome of hostile)
      expect(outcome, outcome.name).toMatchObject({ status: 'failed', error: 'PROLOG_BUDGET' });
    expect(outcomes.at(-1)).toMatchObject({
      name: 'prolog-classifier-rules (again, after the hostile agents)',
      status: 'completed',
    });
  }, 120_000);
});
