/**
 * normalizeVerdict: reads what a Lua evaluator returned (docs/spec.md#52-evaluators): a boolean, a number (valid
 * when ≥ threshold, default 0.5), or a table `{valid (or pass), score, errors, suggestions,
 * feedback (or reason)}`. Scores are clamped to 0..1. Anything else is an invalid attempt of type
 * `evaluator_error` explaining what came back.
 */
import type { ReflectionIssue, Verdict } from '../reflection-types.js';
import { isPlainObject } from '../../util/plain-object.js';
import { cutText } from '../../util/cut-text.js';

export function normalizeVerdict(result: unknown, threshold: number): Verdict {
  if (typeof result === 'boolean') {
    return {
      valid: result,
      score: result ? 1 : 0,
      errors: result ? [] : [{ message: 'Validation failed', type: 'custom' }],
    };
  }
  if (typeof result === 'number' && Number.isFinite(result)) {
    const valid = result >= threshold;
    return {
      valid,
      score: clampScore(result),
      errors: valid ? [] : [{ message: `Score ${result} below threshold ${threshold}`, type: 'custom' }],
    };
  }
  if (isPlainObject(result)) {
    const table = result as Record<string, unknown>;
    const valid = (table.valid ?? table.pass) === true;
    const score =
      typeof table.score === 'number' && Number.isFinite(table.score) ? clampScore(table.score) : valid ? 1 : 0;
    const feedback =
      typeof table.feedback === 'string' ? table.feedback : typeof table.reason === 'string' ? table.reason : undefined;
    let errors = toIssues(table.errors, 'custom');
    if (!valid && errors.length === 0) errors = [{ message: feedback ?? 'Validation failed', type: 'custom' }];
    const verdict: Verdict = { valid, score, errors, suggestions: toStrings(table.suggestions) };
    if (feedback !== undefined) verdict.feedback = feedback;
    return verdict;
  }
  const shown =
    result === null || result === undefined ? 'nothing' : cutText(JSON.stringify(result) ?? String(result), 200);
  return {
    valid: false,
    score: 0,
    errors: [
      {
        message: `Could not interpret the evaluator's result (${shown}): return a boolean, a number or a table {valid, score, errors}`,
        type: 'evaluator_error',
      },
    ],
  };
}

/** A score in 0..1 (NaN → 0). */
export function clampScore(score: number): number {
  if (!Number.isFinite(score)) return 0;
  return Math.min(1, Math.max(0, score));
}

/** Errors given as a list (or a Lua table with keys) of strings or `{message, ...}` tables. */
export function toIssues(value: unknown, type: string): ReflectionIssue[] {
  const items = Array.isArray(value)
    ? value
    : typeof value === 'object' && value !== null
      ? Object.values(value)
      : typeof value === 'string'
        ? [value]
        : [];
  return items.map((item) => {
    if (typeof item === 'string') return { message: item, type };
    if (typeof item === 'object' && item !== null) {
      const entry = item as Record<string, unknown>;
      const issue: ReflectionIssue = {
        message: typeof entry.message === 'string' ? entry.message : JSON.stringify(entry),
        type: typeof entry.type === 'string' ? entry.type : type,
      };
      if (typeof entry.path === 'string') issue.path = entry.path;
      return issue;
    }
    return { message: String(item), type };
  });
}

/** Strings of a list (or Lua table) of strings; other items are skipped. */
export function toStrings(value: unknown): string[] {
  const items = Array.isArray(value)
    ? value
    : typeof value === 'object' && value !== null
      ? Object.values(value)
      : typeof value === 'string'
        ? [value]
        : [];
  return items.filter((item): item is string => typeof item === 'string');
}
