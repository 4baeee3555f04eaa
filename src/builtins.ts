/** Every built-in action, gathered from the modules that own them. */
import { llmActions } from '../llm/actions.js';
import { reasoningActions } from '../reasoning/actions.js';
import { reflectionActions } from '../reflection/actions.js';
import { coreActions } from './core-actions.js';
import type { ActionDefinition } from './types.js';

export function builtinActions(): ActionDefinition[] {
  return [...coreActions(), ...llmActions(), ...reflectionActions(), ...reasoningActions()];
}
