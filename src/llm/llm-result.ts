/**
 * The result shape of the llm.* actions (docs/spec.md#42-llmcall-llmstream): `{content, usage,
 * model, finish_reason}`, plus `tool_calls` and `reasoning` (the model's thinking) when present.
 */
import type { JsonSchema } from '../core/json-schema.js';
import type { LlmResponse } from '../core/model-provider.js';

/** What `llmResult` gives, for the actions' declared results (docs/actions.md). */
export const LLM_RESULT_PROPERTIES: Readonly<Record<string, JsonSchema>> = {
  content: { type: 'string', description: "the model's answer" },
  usage: { type: 'object', description: 'prompt_tokens, completion_tokens, total_tokens' },
  model: { type: 'string', description: 'the model that answered' },
  finish_reason: { type: 'string', description: 'why the model stopped (stop, length, tool_calls…)' },
  tool_calls: {
    type: 'array',
    description: "the model's tool calls, when it made any (always there when tools were offered)",
  },
  reasoning: { type: 'string', description: "the model's thinking, when the server returns it" },
};

export function llmResult(response: LlmResponse): Record<string, unknown> {
  const result: Record<string, unknown> = {
    content: response.content,
    usage: response.usage,
    model: response.model,
    finish_reason: response.finish_reason,
  };
  if (response.tool_calls !== undefined) result.tool_calls = response.tool_calls;
  if (response.reasoning !== undefined) result.reasoning = response.reasoning;
  return result;
}
