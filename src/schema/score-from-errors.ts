/**
 * scoreFromErrors: the graded schema score of docs/spec.md#52-evaluators, `max(0, 1 − 0.2 × errorCount)`, so that
 * `return_best` can prefer the attempt with fewer errors. No errors scores 1.
 * @example scoreFromErrors(2) // 0.6
 */
export function scoreFromErrors(errorCount: number): number {
  if (errorCount <= 0) return 1;
  // Rounded to hide floating-point noise (1 - 0.2 * 3 = 0.3999…).
  return Math.max(0, Math.round((1 - 0.2 * errorCount) * 1000) / 1000);
}
