/**
 * Every built-in action: the action sets (src/action-sets/, each also a package entry such as
 * `tea-edge/actions/llm`) together. The main entry's `loadAgent` and `createActionRegistry` use
 * them all; the engine itself (`graph`, `tea-edge/engine`) takes the registry its host builds, so
 * a host that imports fewer sets ships less (docs/architecture.md, "What to import").
 */
import { coreActions } from './action-sets/core.js';
import { llmActions } from './action-sets/llm.js';
import { prologActions } from './action-sets/prolog.js';
import { reasoningActions } from './action-sets/reasoning.js';
import { reflectionActions } from './action-sets/reflection.js';
import { toolActions } from './action-sets/tools.js';
import { createRegistry, type ActionRegistry } from './actions/registry.js';
import type { ActionDefinition } from './core/action.js';

export function builtinActions(): ActionDefinition[] {
  return [
    ...coreActions(),
    ...llmActions(),
    ...toolActions(),
    ...reasoningActions(),
    ...reflectionActions(),
    ...prologActions(),
  ];
}

export interface ActionRegistryOptions {
  /** Leave out the built-in actions (default false). */
  withoutBuiltins?: boolean;
}

/** The built-in actions (unless left out) plus the host's own; a host action replaces a built-in of the same name. */
export function createActionRegistry(
  extra: ActionDefinition[] = [],
  options: ActionRegistryOptions = {},
): ActionRegistry {
  return createRegistry([...(options.withoutBuiltins === true ? [] : builtinActions()), ...extra]);
}
