/** `tea-edge/actions/llm`: the model actions. */
import { llmActions as callActions } from '../actions/llm-actions.js';
import { llmChatEmbedActions } from '../actions/llm-chat-embed.js';
import type { ActionDefinition } from '../core/action.js';

/** llm.call, llm.stream, llm.tools, llm.chat, llm.embed. */
export function llmActions(): ActionDefinition[] {
  return [...callActions(), ...llmChatEmbedActions()];
}
