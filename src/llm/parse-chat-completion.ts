/**
 * Turns a non-streamed Chat Completions body into an `LlmResponse`, refusing anything that is not
 * a whole answer: malformed JSON, a body that is only the server's error (quoted, server-error.ts),
 * no `choices`, a message without content or tool calls, a tool call without a name or with
 * arguments that are not JSON. `finish_reason: "length"` with empty content is still a response
 * (the caller marks it as truncated). `<think>` thinking is taken out of the content and kept, with
 * a `reasoning_content` / `reasoning` field, as `reasoning`.
 */
import type { LlmResponse, TokenUsage, ToolCall } from '../core/model-provider.js';
import { isPlainObject } from '../util/plain-object.js';
import { parseJsonSafely, type JsonLimits } from '../util/untrusted-json.js';
import { badResponse, serverReportedError } from './llm-errors.js';
import { serverErrorMessage } from './server-error.js';
import { joinReasoning, splitThinking } from './think-tags.js';
import { quoteText } from '../util/cut-text.js';

/** A whole response body is already capped in bytes when read; this bounds its nesting too. */
const RESPONSE_JSON_LIMITS: JsonLimits = { maxLength: 16 * 1024 * 1024, maxDepth: 64 };

/** Parses and checks a response body. Throws LLM_BAD_RESPONSE. */
export function parseChatCompletion(
  body: string,
  requestedModel: string | undefined,
  secrets: readonly string[] = [],
): LlmResponse {
  const parsed = parseJsonSafely(body, RESPONSE_JSON_LIMITS);
  if (!parsed.ok)
    throw badResponse(`the model server sent a body that is not usable JSON: ${parsed.error} (${describeStart(body)})`);
  const json = parsed.value;
  if (!isPlainObject(json)) throw badResponse('the model server sent a JSON value that is not an object');
  const choices = json.choices;
  const serverMessage = Array.isArray(choices) && choices.length > 0 ? undefined : serverErrorMessage(json);
  if (serverMessage !== undefined) throw serverReportedError(serverMessage, 'in place of an answer', secrets);
  if (!Array.isArray(choices) || choices.length === 0) {
    throw badResponse('the model server answered with no choices', { has_error: json.error !== undefined });
  }
  const choice = choices[0];
  if (!isPlainObject(choice) || !isPlainObject(choice.message)) throw badResponse('the first choice has no message');
  const message = choice.message;
  const content = message.content;
  if (content !== null && content !== undefined && typeof content !== 'string') {
    throw badResponse('the message content is not a string');
  }
  const finishReason = typeof choice.finish_reason === 'string' ? choice.finish_reason : null;
  const split = splitThinking(content ?? '');
  const response: LlmResponse = {
    content: split.answer,
    usage: normalizeUsage(json.usage),
    model: typeof json.model === 'string' && json.model !== '' ? json.model : (requestedModel ?? 'unknown'),
    finish_reason: finishReason,
  };
  const reasoning = joinReasoning(reasoningField(message), split.reasoning);
  if (reasoning !== undefined) response.reasoning = reasoning;
  if (message.tool_calls !== undefined && message.tool_calls !== null) {
    if (!Array.isArray(message.tool_calls)) throw badResponse('tool_calls is not a list');
    const toolCalls = message.tool_calls.map((call, index) => readToolCall(call, index));
    if (toolCalls.length > 0) response.tool_calls = toolCalls;
  }
  return response;
}

/**
 * The thinking in a message or delta: `reasoning_content` (DeepSeek, llama.cpp, vLLM before 0.11,
 * LM Studio, SGLang) or `reasoning` (Ollama, vLLM 0.11+). Servers in transition send both with the
 * same text (mlx-vlm), so one is taken, never both.
 */
export function reasoningField(message: Record<string, unknown>): string | undefined {
  for (const key of ['reasoning_content', 'reasoning']) {
    const text = message[key];
    if (typeof text === 'string' && text !== '') return text;
  }
  return undefined;
}

function readToolCall(call: unknown, index: number): ToolCall {
  if (!isPlainObject(call) || !isPlainObject(call.function)) throw badResponse(`tool call ${index} has no function`);
  const argumentsValue = call.function.arguments;
  const argumentsText =
    typeof argumentsValue === 'string'
      ? argumentsValue
      : argumentsValue === undefined
        ? ''
        : JSON.stringify(argumentsValue);
  return checkedToolCall(index, typeof call.id === 'string' ? call.id : undefined, call.function.name, argumentsText);
}

/**
 * Builds a complete tool call or throws: a name is required and the arguments must be a JSON
 * object (empty arguments mean `{}`). Used for whole and streamed responses alike.
 */
export function checkedToolCall(index: number, id: string | undefined, name: unknown, argumentsText: string): ToolCall {
  // The response arrived whole; what is wrong is the tool call the model wrote: `model_output`
  // marks a content failure, not an infrastructure one (isInfrastructureFailure).
  if (typeof name !== 'string' || name === '')
    throw badResponse(`tool call ${index} has no function name`, { half_tool_call: true, model_output: true });
  const text = argumentsText.trim() === '' ? '{}' : argumentsText;
  const outcome = parseJsonSafely(text);
  if (!outcome.ok)
    throw badResponse(`tool call ${index} (${name}) has arguments that are not complete JSON (${outcome.error})`, {
      half_tool_call: true,
      model_output: true,
    });
  const parsed = outcome.value;
  if (!isPlainObject(parsed))
    throw badResponse(`tool call ${index} (${name}) has arguments that are not a JSON object`, { model_output: true });
  return {
    id: id !== undefined && id !== '' ? id : `call_${index}`,
    type: 'function',
    function: { name, arguments: text },
  };
}

/** Usage with every count a finite non-negative number (0 when the server did not say). */
export function normalizeUsage(value: unknown): TokenUsage {
  const usage = isPlainObject(value) ? value : {};
  const count = (key: string): number => {
    const number = usage[key];
    return typeof number === 'number' && Number.isFinite(number) && number >= 0 ? number : 0;
  };
  const prompt = count('prompt_tokens');
  const completion = count('completion_tokens');
  const total = count('total_tokens');
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: total > 0 ? total : prompt + completion,
  };
}

function describeStart(body: string): string {
  const start = body.trim();
  return start === '' ? 'empty body' : `starts with ${quoteText(start, 40)}`;
}
