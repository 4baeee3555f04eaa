/**
 * What a model call sends, redacted (issue 24 cause 6): a secret that reached the history (a tool
 * or MCP server echoing it, a model repeating it, a template rendering it) is replaced before the
 * request leaves, by the rule of the run's sanitiser (every secret of the run and each call's
 * `api_key`; `Bearer`/`Basic` credentials in text). Every string of the request is covered:
 * message content, names, tool calls and their arguments, tool definitions, the response format,
 * stop sequences. Keys are kept as they are, so a tool's parameter named `api_key` stays a valid
 * schema: a secret used as a key name is not redacted here.
 *
 * The lent history (ModelProvider.borrowsRequest) is never changed: a message that needs
 * redaction is copied, and the list is copied only then.
 */
import { createSanitizer } from '../events/outbound.js';
import type { ChatMessage, LlmRequest } from '../core/model-provider.js';

/** `request` with every secret in its strings replaced; `request` itself when nothing changes. */
export function redactRequest(request: LlmRequest, secrets: readonly string[]): LlmRequest {
  // The sanitiser's text form: secrets also in their JSON-escaped form (tool call arguments are JSON text).
  const clean = createSanitizer(secrets).text;
  let messages: ChatMessage[] | undefined;
  for (let index = 0; index < request.messages.length; index++) {
    const message = request.messages[index]!;
    const copy = redactStrings(message, clean) as ChatMessage;
    if (copy === message) continue;
    messages ??= request.messages.slice();
    messages[index] = copy;
  }
  let result: LlmRequest = request;
  if (messages !== undefined) result = { ...request, messages };
  for (const key of ['tools', 'response_format', 'stop'] as const) {
    const value = request[key];
    if (value === undefined) continue;
    const copy = redactStrings(value, clean);
    if (copy !== value) result = { ...result, [key]: copy };
  }
  return result;
}

/** Embedding inputs, redacted the same way. */
export function redactInputs(input: readonly string[], secrets: readonly string[]): string[] {
  const clean = createSanitizer(secrets).text;
  return input.map(clean);
}

/** A copy of a JSON value with `clean` applied to every string (not to keys); the value itself when nothing changes. */
function redactStrings(value: unknown, clean: (text: string) => string): unknown {
  if (typeof value === 'string') return clean(value);
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let index = 0; index < value.length; index++) {
      const item = redactStrings(value[index], clean);
      if (item === value[index]) continue;
      copy ??= value.slice();
      copy[index] = item;
    }
    return copy ?? value;
  }
  if (typeof value === 'object' && value !== null) {
    let copy: Record<string, unknown> | undefined;
    for (const [key, field] of Object.entries(value)) {
      const item = redactStrings(field, clean);
      if (item === field) continue;
      copy ??= { ...(value as Record<string, unknown>) };
      copy[key] = item;
    }
    return copy ?? value;
  }
  return value;
}
