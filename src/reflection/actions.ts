/**
 * The reflection actions (docs/spec.md#5-reflection-seeds-000-001-002): `reflection.loop`, `reflection.evaluate`,
 * `reflection.correct` and `reflection.review`. TEA's `actions.reflection_*` spellings resolve to
 * them through the registry.
 */
import type { ActionDefinition } from '../core/action.js';
import { reflectionCorrectAction } from './reflection-correct-action.js';
import { reflectionEvaluateAction } from './reflection-evaluate-action.js';
import { reflectionLoopAction } from './reflection-loop-action.js';
import { reflectionReviewAction } from './review/reflection-review-action.js';

export function reflectionActions(): ActionDefinition[] {
  return [
    reflectionLoopAction,
    reflectionEvaluateAction,
    reflectionCorrectAction,
    reflectionReviewAction,
  ] as ActionDefinition[];
}
