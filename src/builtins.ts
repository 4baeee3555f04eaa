/**
 * Every built-in action, gathered from the modules that own them, and the registry the engine
 * uses when a host gives none. This sits above the action implementations (core, llm.*, tools,
 * reasoning, reflection) so the registry contract (src/actions/registry.ts) does not have to know
 * them; `graph` takes its default registry from here (docs/architecture.md, "Layers").
 */
import { coreActions } from './actions/core-actions.js';
import { llmActions } from './actions/llm-actions.js';
import { createRegistry, type ActionRegistry } from './actions/registry.js';
import type { ActionDefinition } from './actions/types.js';
import { reasoningActions } from './reasoning/actions.js';
import { reflectionActions } from './reflection/actions.js';

export function builtinActions(): ActionDefinition[] {
  return [...coreActions(), ...llmActions(), ...reflectionActions(), ...reasoningActions()];
}

export interface ActionRegistryOptions {
  /** Leave out the built-in actions (default false). */
  withoutBuiltins?: boolean;
}

/** The built-in actions (unless left out) plus the host's own; a host action replaces a built-in of the same name. */
export function createActionRegistry(extra: ActionDefinition[] = [], options: ActionRegistryOptions = {}): ActionRegistry {
  return createRegistry([...(options.withoutBuiltins === true ? [] : builtinActions()), ...extra]);
}
