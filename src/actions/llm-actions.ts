/**
 * The built-in model actions (docs/spec.md#42-llmcall-llmstream): `llm.call`, `llm.stream` and `llm.tools`. The first two
 * hand their (already rendered) parameters to `context.callLlm`, which applies `settings.llm`
 * defaults and overrides, counts the budget and emits events; `llm.stream` (or `stream: true`)
 * streams tokens as `answer_chunk` events. `output:` handling is the engine's.
 */
import type { ActionDefinition, ActionContext, LlmCallParams } from '../core/action.js';
import { llmResult } from '../llm/llm-result.js';
import { llmProperties, MODEL_CALL_KEYS } from '../spec/parameter-shapes.js';
import { llmToolsAction } from './llm-tools.js';

const LLM_PARAMETERS = {
  type: 'object',
  properties: {
    prompt: { type: 'string', description: 'the user message (with optional `system`)' },
    system: { type: 'string' },
    messages: { type: 'array', description: 'chat messages {role, content}; win over prompt' },
    tools: { type: 'array' },
    tool_choice: {},
    stream: { type: 'boolean' },
    ...llmProperties(MODEL_CALL_KEYS),
  },
  additionalProperties: false,
};

async function callModel(
  params: Record<string, unknown>,
  context: ActionContext,
  stream: boolean,
): Promise<Record<string, unknown>> {
  const { stream: _stream, ...callParams } = params;
  const response = await context.callLlm(callParams as LlmCallParams, { stream });
  const result = llmResult(response);
  // With tools offered, `tool_calls` is always there (empty when the model answered in text).
  if (params.tools !== undefined && params.tools !== null && result.tool_calls === undefined) result.tool_calls = [];
  return result;
}

const llmCallAction: ActionDefinition<Record<string, unknown>> = {
  name: 'llm.call',
  description: 'Calls an OpenAI-compatible chat model and returns {content, usage, model, finish_reason}.',
  parameters: LLM_PARAMETERS,
  run: (params, context) => callModel(params, context, params.stream === true),
};

const llmStreamAction: ActionDefinition<Record<string, unknown>> = {
  name: 'llm.stream',
  description: 'Like llm.call, streaming the answer as answer_chunk events while it arrives.',
  parameters: LLM_PARAMETERS,
  run: (params, context) => callModel(params, context, true),
};

/** The llm.* actions, for src/builtins.ts. */
export function llmActions(): ActionDefinition[] {
  return [llmCallAction, llmStreamAction, llmToolsAction];
}
