/** Every built-in action, gathered from the modules that own them. */
import { llmActions } from '../llm/actions.js';
import { reasoningActions } from '../reasoning/actions.js';
import { reasonCot } from '../reasoning/reason-cot.js';
import { reasonReact } from '../reasoning/react/reason-react.js';
import { reflectionActions } from '../reflection/actions.js';
import { webTools } from '../tools/web-tools.js';
import { agentActions } from './agent-actions.js';
import { coreActions } from './core-actions.js';
import { dspyAlias } from './dspy-aliases.js';
import { llmChatEmbedActions } from './llm-chat-embed.js';
import { retryLoop } from './retry-loop.js';
import { stateActions } from './state-actions.js';
import type { ActionDefinition } from './types.js';

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
  ];
}
