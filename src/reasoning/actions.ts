/** reason.cot, reason.react, reason.self_correct, reason.decompose and the built-in tools. */
import type { ActionDefinition } from '../actions/types.js';

export function reasoningActions(): ActionDefinition[] {
  return [];
}
