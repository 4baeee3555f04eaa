/**
 * restoreHistory: reads a `reflection_history` left in the state by an earlier loop node (for
 * `continue: true`), keeping only well-formed entries and renumbering them 1..n so the
 * iteration cap counts them. Anything that is not a list gives an empty history.
 */
import type { Attempt, ReflectionIssue } from './reflection-types.js';
import { clampScore, toIssues } from './evaluators/normalize-verdict.js';
import { isPlainObject } from '../util/plain-object.js';

export function restoreHistory(value: unknown): Attempt[] {
  if (!Array.isArray(value)) return [];
  const history: Attempt[] = [];
  for (const entry of value) {
    if (!isPlainObject(entry)) continue;
    const item = entry as Record<string, unknown>;
    const errors: ReflectionIssue[] = Array.isArray(item.errors)
      ? item.errors.map((error) =>
          typeof error === 'object' && error !== null ? { ...(error as ReflectionIssue) } : { message: String(error) },
        )
      : toIssues(item.errors, 'restored');
    const attempt: Attempt = {
      iteration: history.length + 1,
      output: item.output ?? null,
      score: typeof item.score === 'number' ? clampScore(item.score) : 0,
      valid: item.valid === true,
      errors,
      source: item.source === 'corrector' ? 'corrector' : 'generator',
    };
    if (Array.isArray(item.suggestions))
      attempt.suggestions = item.suggestions.filter((text): text is string => typeof text === 'string');
    if (typeof item.feedback === 'string') attempt.feedback = item.feedback;
    history.push(attempt);
  }
  return history;
}
