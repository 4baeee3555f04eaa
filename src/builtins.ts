/**
 * Every built-in action, gathered from the modules that own them, and the registry the engine
 * uses when a host gives none. This sits above the action implementations (core, llm.*, tools,
 * reasoning, reflection) so the registry contract (src/actions/registry.ts) does not have to know
 * them; `graph` takes its default registry from here (docs/architecture.md, "Layers").
 */
import { agentActions } from './actions/agent-actions.js';
import { coreActions } from './actions/core-actions.js';
import { dspyAlias } from './actions/dspy-aliases.js';
import { fileActions } from './actions/file-actions.js';
import { llmActions } from './actions/llm-actions.js';
import { llmChatEmbedActions } from './actions/llm-chat-embed.js';
import { createRegistry, type ActionRegistry } from './actions/registry.js';
import { retryLoop } from './actions/retry-loop.js';
import { stateActions } from './actions/state-actions.js';
import type { ActionDefinition } from './core/action.js';
import { reasoningActions } from './reasoning/actions.js';
import { reasonCot } from './reasoning/reason-cot.js';
import { reasonReact } from './reasoning/react/reason-react.js';
import { reflectionActions } from './reflection/actions.js';
import { webTools } from './tools/web-tools.js';
import { prologQueryAction } from './prolog/prolog-query-action.js';

export function builtinActions(): ActionDefinition[] {
  return [
    ...coreActions(),
    ...llmActions(),
    ...reflectionActions(),
    ...reasoningActions(),
    // TEA compatibility (issue 13): chat/embeddings, state shaping, DSPy fallbacks, retry, web.
    ...llmChatEmbedActions(),
    ...stateActions(),
    dspyAlias('reason.dspy.cot', reasonCot() as ActionDefinition, { defaultSignature: 'question -> thinking, answer', exampleTarget: 'problem' }),
    dspyAlias('reason.dspy.react', reasonReact() as ActionDefinition, { defaultSignature: 'goal -> result' }),
    retryLoop as ActionDefinition,
    ...webTools(),
    ...agentActions(),
    ...fileActions(),
    // Needs the host's Prolog sandbox (loaded on demand, src/prolog/load-prolog.ts).
    prologQueryAction as ActionDefinition,
  ];
}

export interface ActionRegistryOptions {
  /** Leave out the built-in actions (default false). */
  withoutBuiltins?: boolean;
}

/** The built-in actions (unless left out) plus the host's own; a host action replaces a built-in of the same name. */
export function createActionRegistry(extra: ActionDefinition[] = [], options: ActionRegistryOptions = {}): ActionRegistry {
  return createRegistry([...(options.withoutBuiltins === true ? [] : builtinActions()), ...extra]);
}
