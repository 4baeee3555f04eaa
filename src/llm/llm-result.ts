/**
 * The result shape of the llm.* actions (docs/spec.md#42-llmcall-llmstream): `{content, usage,
 * model, finish_reason}`, plus `tool_calls` and `reasoning` (the model's thinking) when present.
 */
import type { LlmResponse } from '../core/model-provider.js';

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
