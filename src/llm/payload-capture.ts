/**
 * What `llm_request` / `llm_response` events carry when payload capture is on: the request
 * (messages, model, sampling, response format, tools) and the response (content, reasoning, tool calls),
 * redacted and capped, so a trace can be read and replayed without holding secrets or megabytes.
 */
import type { CapturedRequest, CapturedResponse } from '../core/events.js';
import type { LlmRequest, LlmResponse } from '../core/model-provider.js';
import { redactSecrets, redactValue } from './redact.js';

/** Longest text kept per message or response content; longer text is cut with a marker. */
export const PAYLOAD_TEXT_LIMIT = 32 * 1024;

export function requestPayload(request: LlmRequest, secrets: readonly string[]): CapturedRequest {
  const payload: CapturedRequest = {
    messages: request.messages.map((message) => {
      const copy: CapturedRequest['messages'][number] = {
        role: message.role,
        content: message.content === null ? null : capText(message.content, secrets),
      };
      if (message.tool_calls !== undefined) copy.tool_calls = redactValue(message.tool_calls, secrets);
      if (message.tool_call_id !== undefined) copy.tool_call_id = message.tool_call_id;
      if (message.name !== undefined) copy.name = message.name;
      return copy;
    }),
  };
  for (const key of ['model', 'temperature', 'max_tokens', 'response_format', 'tools', 'tool_choice'] as const) {
    if (request[key] !== undefined) payload[key] = redactValue(request[key], secrets);
  }
  return payload;
}

export function responsePayload(response: LlmResponse, secrets: readonly string[]): CapturedResponse {
  const payload: CapturedResponse = {
    content: capText(response.content, secrets),
    finish_reason: response.finish_reason,
    usage: response.usage,
  };
  if (response.tool_calls !== undefined) payload.tool_calls = redactValue(response.tool_calls, secrets);
  if (response.reasoning !== undefined) payload.reasoning = capText(response.reasoning, secrets);
  return payload;
}

function capText(text: string, secrets: readonly string[]): string {
  const clean = redactSecrets(text, secrets);
  return clean.length <= PAYLOAD_TEXT_LIMIT
    ? clean
    : `${clean.slice(0, PAYLOAD_TEXT_LIMIT)}…[truncated ${clean.length - PAYLOAD_TEXT_LIMIT} characters]`;
}
