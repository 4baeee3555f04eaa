/**
 * Turns one model response into what the ReAct loop does next: a final answer, tool calls, or a
 * parse error. JSON mode reads `{thought, action, action_input}` through the shared parser (plus
 * the classic `Thought: / Action: / Action Input:` text form); native mode reads OpenAI
 * `tool_calls`, and a reply without tool calls is the final answer (seed 003).
 */
import type { LlmResponse } from '../../core/model-provider.js';
import { parseModelOutput } from '../parse-output.js';
import { textOf } from '../../util/text-of.js';
import { isForbiddenKey } from '../../util/forbidden-keys.js';
import { isPlainObject } from '../../util/plain-object.js';
import { parseJsonSafely } from '../../util/untrusted-json.js';
import { cutText } from '../../util/cut-text.js';

/** One tool call the model asked for; `arguments` is raw (a JSON string in native mode). */
export interface RequestedCall {
  /** The model's id (native mode), echoed as `tool_call_id`; servers may reuse ids across replies. */
  id: string;
  /** Unique within the loop (`call_<step>_<n>`): what the executed-call record is keyed by. */
  key: string;
  name: unknown;
  arguments: unknown;
  /** True when `arguments` is still the model's JSON text (native mode). */
  argumentsAreText: boolean;
}

export type ReactDecision =
  | { kind: 'final'; thought: string; answer: unknown }
  | { kind: 'tools'; thought: string; calls: RequestedCall[] }
  | { kind: 'parse_error'; error: string; raw: string };

/** Largest number of tool calls taken from one response; the rest are ignored (and said so). */
export const MAX_CALLS_PER_RESPONSE = 8;

/** Reads a JSON-mode response; `reasoning` (the response's thinking) is the thought when the JSON gives none. */
export function decideFromJson(content: string, step: number, reasoning?: string): ReactDecision {
  const parsed = parseModelOutput(content);
  let value: unknown = parsed.ok ? parsed.value : undefined;
  // JSON found inside prose may be only the `Action Input:` of the classic text form.
  const embedded =
    !parsed.ok || parsed.method === 'balanced' || parsed.method === 'repair' || parsed.method === 'thinking';
  if (!(isPlainObject(value) && 'action' in value) && embedded) value = parseReactText(content) ?? value;
  if (!isPlainObject(value)) {
    const error = parsed.ok ? `Expected a JSON object with "action", got ${cutText(textOf(value), 100)}` : parsed.error;
    return { kind: 'parse_error', error, raw: cutText(content, 2000) };
  }
  return decideFromObject(value, (parsed.ok ? parsed.thinking : undefined) ?? reasoning, step);
}

/** Reads a `{thought, action, action_input}` object (also used for native replies written as JSON). */
export function decideFromObject(
  value: Record<string, unknown>,
  thinking: string | undefined,
  step: number,
): ReactDecision {
  const thought = value['thought'] !== undefined ? textOf(value['thought']) : (thinking ?? '');
  const action = value['action'];
  const input = value['action_input'] ?? value['input'] ?? value['arguments'];
  if (action === undefined || action === null || action === '') {
    // No action at all counts as the final answer (seed 003).
    const answer =
      value['answer'] ??
      value['final_answer'] ??
      (isPlainObject(input) && 'answer' in input ? input['answer'] : input) ??
      value['thought'] ??
      value;
    return { kind: 'final', thought, answer };
  }
  if (isFinalAction(action)) return { kind: 'final', thought, answer: finalAnswerOf(input) };
  return {
    kind: 'tools',
    thought,
    calls: [
      { id: `call_${step}_1`, key: `call_${step}_1`, name: action, arguments: input ?? {}, argumentsAreText: false },
    ],
  };
}

/** Reads a native tool-calling response. */
export function decideFromNative(response: LlmResponse, step: number): ReactDecision {
  const calls = response.tool_calls ?? [];
  const content = response.content ?? '';
  if (calls.length === 0) {
    const text = content.trim();
    if (text === '') return { kind: 'parse_error', error: 'Empty response from LLM', raw: '' };
    const parsed = parseModelOutput(text);
    if (parsed.ok && isPlainObject(parsed.value) && typeof parsed.value['action'] === 'string')
      return decideFromObject(parsed.value, parsed.thinking ?? response.reasoning, step);
    return { kind: 'final', thought: '', answer: text };
  }
  const seen = new Set<string>();
  const requested: RequestedCall[] = calls.slice(0, MAX_CALLS_PER_RESPONSE).map((call, index) => {
    // Only plain ids are echoed back (never `__proto__` and the like).
    let id =
      typeof call.id === 'string' && /^[A-Za-z0-9_:-]{1,80}$/.test(call.id) && !isForbiddenKey(call.id)
        ? call.id
        : `call_${step}_${index + 1}`;
    if (seen.has(id)) id = `${id}_${index + 1}`;
    seen.add(id);
    return {
      id,
      key: `call_${step}_${index + 1}`,
      name: call.function?.name,
      arguments: call.function?.arguments ?? '{}',
      argumentsAreText: true,
    };
  });
  // With tool calls, the text beside them is the thought; a reasoning model's thinking when there is none.
  const thought = content.trim() === '' && response.reasoning !== undefined ? response.reasoning : content;
  const final = requested.find((call) => call.name === 'final_answer');
  if (final !== undefined) {
    const parsed =
      typeof final.arguments === 'string'
        ? parseJsonSafely(final.arguments)
        : { ok: true as const, value: final.arguments };
    return { kind: 'final', thought, answer: finalAnswerOf(parsed.ok ? parsed.value : final.arguments) };
  }
  return { kind: 'tools', thought, calls: requested };
}

/**
 * `final_answer`, and the spellings small models use for it (`Final Answer`, `finish`,
 * `final-answer`). These always finish the loop, even if a tool called `finish` were listed.
 */
export function isFinalAction(action: unknown): boolean {
  if (typeof action !== 'string') return false;
  const normalised = action
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
  return normalised === 'final_answer' || normalised === 'finish' || normalised === 'finalanswer';
}

/** `action_input.answer`, else the whole input (a string input is the answer itself). */
export function finalAnswerOf(input: unknown): unknown {
  if (isPlainObject(input) && 'answer' in input) return input['answer'];
  return input ?? null;
}

/**
 * The classic text form some small models fall back to:
 * `Thought: …\nAction: tool\nAction Input: {…}` (or `Final Answer: …`).
 */
function parseReactText(content: string): Record<string, unknown> | undefined {
  const finalMatch = /(?:^|\n)[ \t]*\**final answer\**\s*:\s*([\s\S]+)$/i.exec(content);
  const thoughtMatch = /(?:^|\n)[ \t]*\**thought\**\s*:\s*(.+)/i.exec(content);
  const thought = thoughtMatch?.[1]?.trim() ?? '';
  if (finalMatch !== null) return { thought, action: 'final_answer', action_input: { answer: finalMatch[1]!.trim() } };
  const actionMatch = /(?:^|\n)[ \t]*\**action\**\s*:\s*`?([^\s`]+)`?/i.exec(content);
  if (actionMatch === null) return undefined;
  const inputMatch = /(?:^|\n)[ \t]*\**action[ _]input\**\s*:\s*([\s\S]+)$/i.exec(content);
  let input: unknown = {};
  if (inputMatch !== null) {
    const parsed = parseModelOutput(inputMatch[1]!);
    input = parsed.ok ? parsed.value : inputMatch[1]!.trim();
  }
  return { thought, action: actionMatch[1], action_input: input };
}
