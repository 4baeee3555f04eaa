/** The result shape of the llm.* actions (docs/spec.md#42-llmcall-llmstream): `{content, usage, model, finish_reason}` (+ `tool_calls`). */
import type { LlmResponse } from './types.js';

export function llmResult(response: LlmResponse): Record<string, unknown> {
  const result: Record<string, unknown> = {
    content: response.content,
    usage: response.usage,
    model: response.model,
    finish_reason: response.finish_reason,
  };
  if (response.tool_calls !== undefined) result.tool_calls = response.tool_calls;
  return result;
}
