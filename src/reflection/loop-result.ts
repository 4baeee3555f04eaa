/**
 * Best-of selection and the result of `reflection.loop` (docs/spec.md#51-reflectionloop).
 *
 * Result keys: the reflection state variables, `valid`, `success` (= valid), `exhausted`
 * (iterations ran out), `iterations`, `stop_reason` (`valid` | `max_iterations` | `budget`) and
 * `output`, the returned attempt's output: the valid one; otherwise the best (`return_best`,
 * earliest of equal scores) or the last (`return_last`). As in TEA, an object output's keys are
 * spread into the result (a non-object output becomes `result`), but they never overwrite the
 * keys above, nor `__proto__`/`constructor`/`prototype`.
 */
import type { Attempt, LoopStopReason, OnFailure } from './reflection-types.js';
import { FORBIDDEN_KEYS } from '../util/forbidden-keys.js';
import { isPlainObject } from '../util/plain-object.js';

/** The best attempt: strictly higher score wins, so ties keep the earliest. Failed generations never count. */
export function pickBest(history: readonly Attempt[]): Attempt | undefined {
  let best: Attempt | undefined;
  for (const attempt of history) {
    if (isGeneratorFailure(attempt)) continue;
    if (best === undefined || attempt.score > best.score) best = attempt;
  }
  return best;
}

/** An attempt whose generator failed: there was no candidate to evaluate. */
export function isGeneratorFailure(attempt: Attempt): boolean {
  return attempt.errors.length > 0 && attempt.errors.every((error) => error.type === 'generator_error');
}

export interface LoopOutcome {
  history: Attempt[];
  stopReason: LoopStopReason;
  onFailure: OnFailure;
  feedback: string | undefined;
}

export function buildLoopResult({ history, stopReason, onFailure, feedback }: LoopOutcome): Record<string, unknown> {
  const last = history[history.length - 1];
  const best = pickBest(history);
  const valid = stopReason === 'valid' && last !== undefined && last.valid;
  const chosen = valid ? last : onFailure === 'return_last' ? last : (best ?? last);
  const output = chosen?.output ?? null;
  const core: Record<string, unknown> = {
    reflection_iteration: last?.iteration ?? 0,
    reflection_output: output,
    reflection_errors: valid ? [] : (last?.errors ?? []),
    reflection_history: history,
    reflection_best: valid ? last.output : (best?.output ?? null),
    reflection_best_score: valid ? last.score : (best?.score ?? -1),
    reflection_feedback: feedback ?? null,
    valid,
    success: valid,
    exhausted: !valid && stopReason === 'max_iterations',
    iterations: history.length,
    stop_reason: stopReason,
    output,
  };
  const result: Record<string, unknown> = {};
  if (isPlainObject(output)) {
    for (const key of Object.keys(output)) {
      if (!(key in core) && !FORBIDDEN_KEYS.has(key)) result[key] = (output as Record<string, unknown>)[key];
    }
  } else {
    result.result = output;
  }
  return Object.assign(result, core);
}
