/** reflection.loop, reflection.evaluate, reflection.correct, reflection.review. */
import type { ActionDefinition } from '../actions/types.js';

export function reflectionActions(): ActionDefinition[] {
  return [];
}
