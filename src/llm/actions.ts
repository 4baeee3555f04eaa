/** llm.call, llm.stream, llm.tools (filled in by the model-client work). */
import type { ActionDefinition } from '../actions/types.js';

export function llmActions(): ActionDefinition[] {
  return [];
}
