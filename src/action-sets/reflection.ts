/** `tea-edge/reflection`: the reflection actions, and `reviewRun` (a finished run reviewed by a model). */
import type { ActionDefinition } from '../core/action.js';
import { reflectionActions as allReflectionActions } from '../reflection/actions.js';

/** reflection.loop, reflection.evaluate, reflection.correct, reflection.review. */
export function reflectionActions(): ActionDefinition[] {
  return allReflectionActions();
}

export { reviewRun } from '../reflection/review/review-on-demand.js';
export type { ReviewRunOptions, Review, PlanEvaluation } from '../reflection/review/review-run.js';
