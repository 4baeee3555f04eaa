import { expect } from 'vitest';
import type { CorpusExpectation } from './corpus-cases.js';
import type { CorpusOutcome } from './corpus-runner.js';

/** Checks one outcome against its case's expectation. */
export function expectOutcome(outcome: CorpusOutcome, expected: CorpusExpectation): void {
  expect(outcome.status, outcome.name).toBe(expected.status);
  if (expected.stop_reason !== undefined) expect(outcome.stop_reason, outcome.name).toBe(expected.stop_reason);
  if (expected.error_code !== undefined) expect(outcome.error_code, outcome.name).toBe(expected.error_code);
  if (expected.state !== undefined) expect(outcome.state, outcome.name).toEqual(expected.state);
  if (expected.state_subset !== undefined) expect(outcome.state, outcome.name).toMatchObject(expected.state_subset);
  if (expected.state_keys !== undefined)
    expect(Object.keys(outcome.state).sort(), outcome.name).toEqual([...expected.state_keys].sort());
  expect(outcome.event_types, outcome.name).toEqual(expected.event_types);
  expect(outcome.seqs_ok, outcome.name).toBe(true);
}
