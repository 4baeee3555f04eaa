/**
 * Assembles a streamed Chat Completion from its SSE `data:` payloads: content deltas in order,
 * tool-call deltas joined by `index`, the finish reason, and the usage of a usage-only final chunk.
 * It refuses what cannot be trusted: a payload that is not JSON, a chunk sent twice in a row (see
 * `cannotRepeat`), a second finish, a tool call restarted with a new id, data after `[DONE]`, and
 * at the end a stream that never finished or a tool call that is not complete.
 */
import type { LlmResponse, ToolCall } from './types.js';
import { badResponse } from './llm-errors.js';
import { checkedToolCall, normalizeUsage } from './parse-chat-completion.js';
import { isPlainObject } from '../util/plain-object.js';
import { cutText } from '../util/cut-text.js';

/** What one payload adds, for the consumer to forward as stream parts. */
export interface ChunkDelta {
  content: string;
  toolCalls: { index: number; name?: string; arguments?: string }[];
}

export interface ChatStreamAssembler {
  /** Takes one `data:` payload. Returns what it added, or `done` for `[DONE]`. Throws LLM_BAD_RESPONSE. */
  accept(data: string): ChunkDelta | 'done';
  /** True once `[DONE]` or a finish reason arrived. */
  readonly finished: boolean;
  /** The whole response; throws LLM_BAD_RESPONSE when the stream is not complete. */
  result(): LlmResponse;
}

interface PartialToolCall {
  id?: string;
  name: string;
  argumentsText: string;
}

/** Creates an assembler for one streamed response. */
export function createChatStreamAssembler(requestedModel: string | undefined): ChatStreamAssembler {
  const contentParts: string[] = [];
  const toolCalls = new Map<number, PartialToolCall>();
  let finishReason: string | null = null;
  let doneSeen = false;
  let choicesSeen = false;
  let model: string | undefined;
  let usage: unknown;
  let previousData: string | undefined;
  let chunkCount = 0;

  /** Servers that omit `index` (older Ollama): a new id starts a call, no id continues the last one. */
  function indexWithoutIndex(id: string | undefined): number {
    if (id !== undefined) {
      for (const [index, call] of toolCalls) if (call.id === id) return index;
      return toolCalls.size;
    }
    return toolCalls.size === 0 ? 0 : Math.max(...toolCalls.keys());
  }

  function acceptToolCallDelta(delta: unknown, delivered: ChunkDelta): void {
    if (!isPlainObject(delta)) throw badResponse('a streamed tool call delta is not an object');
    const fn = isPlainObject(delta.function) ? delta.function : {};
    const id = typeof delta.id === 'string' && delta.id !== '' ? delta.id : undefined;
    const index = typeof delta.index === 'number' && Number.isInteger(delta.index) && delta.index >= 0 ? delta.index : indexWithoutIndex(id);
    if (index < 0) throw badResponse('a streamed tool call delta has no index');
    let call = toolCalls.get(index);
    if (call === undefined) {
      call = { name: '', argumentsText: '' };
      if (id !== undefined) call.id = id;
      toolCalls.set(index, call);
    } else if (id !== undefined && call.id !== undefined && id !== call.id) {
      throw badResponse(`tool call ${index} was restarted with a new id (duplicated or malformed chunk)`);
    } else if (id !== undefined) {
      call.id = id;
    }
    const part: { index: number; name?: string; arguments?: string } = { index };
    if (typeof fn.name === 'string' && fn.name !== '') {
      // Servers send the name once; a second, different name means chunks were mixed up.
      if (call.name !== '' && call.name !== fn.name) throw badResponse(`tool call ${index} changed its name mid-stream`);
      call.name = fn.name;
      part.name = fn.name;
    }
    if (typeof fn.arguments === 'string' && fn.arguments !== '') {
      call.argumentsText += fn.arguments;
      part.arguments = fn.arguments;
    } else if (isPlainObject(fn.arguments)) {
      call.argumentsText += JSON.stringify(fn.arguments);
      part.arguments = JSON.stringify(fn.arguments);
    }
    delivered.toolCalls.push(part);
  }

  return {
    get finished() {
      return doneSeen || finishReason !== null;
    },
    accept(data) {
      if (doneSeen) throw badResponse('the stream sent data after [DONE]');
      if (data.trim() === '[DONE]') {
        doneSeen = true;
        return 'done';
      }
      const repeated = data === previousData;
      previousData = data;
      chunkCount++;
      let json: unknown;
      try {
        json = JSON.parse(data);
      } catch {
        throw badResponse(`stream chunk ${chunkCount} is not valid JSON (malformed chunk)`, { chunk: chunkCount });
      }
      if (!isPlainObject(json)) throw badResponse(`stream chunk ${chunkCount} is not a JSON object`);
      if (repeated && cannotRepeat(json)) throw badResponse(`stream chunk ${chunkCount} repeats the one before (duplicated chunk)`, { chunk: chunkCount });
      if (isPlainObject(json.error)) {
        const message = typeof json.error.message === 'string' ? json.error.message : 'unknown error';
        throw badResponse(`the model server reported an error mid-stream: ${cutText(message, 300)}`);
      }
      if (typeof json.model === 'string' && json.model !== '') model = json.model;
      if (json.usage !== undefined && json.usage !== null) usage = json.usage;
      const delivered: ChunkDelta = { content: '', toolCalls: [] };
      const choices = json.choices;
      if (choices === undefined || (Array.isArray(choices) && choices.length === 0)) return delivered;
      if (!Array.isArray(choices)) throw badResponse(`stream chunk ${chunkCount} has choices that are not a list`);
      choicesSeen = true;
      for (const choice of choices) {
        if (!isPlainObject(choice)) throw badResponse(`stream chunk ${chunkCount} has a choice that is not an object`);
        if (typeof choice.index === 'number' && choice.index !== 0) continue; // only the first choice is used
        const delta = isPlainObject(choice.delta) ? choice.delta : isPlainObject(choice.message) ? choice.message : {};
        const carriesOutput = (typeof delta.content === 'string' && delta.content !== '') || (Array.isArray(delta.tool_calls) && delta.tool_calls.length > 0);
        // Empty trailers after the finish (usage, timings, a restated finish) are harmless; output is not.
        if (finishReason !== null && carriesOutput) throw badResponse('the stream sent output after its finish reason (duplicated chunk)');
        if (typeof delta.content === 'string' && delta.content !== '') {
          contentParts.push(delta.content);
          delivered.content += delta.content;
        } else if (delta.content !== undefined && delta.content !== null && typeof delta.content !== 'string') {
          throw badResponse(`stream chunk ${chunkCount} has content that is not a string`);
        }
        if (delta.tool_calls !== undefined && delta.tool_calls !== null) {
          if (!Array.isArray(delta.tool_calls)) throw badResponse(`stream chunk ${chunkCount} has tool_calls that are not a list`);
          for (const toolDelta of delta.tool_calls) acceptToolCallDelta(toolDelta, delivered);
        }
        if (finishReason === null && typeof choice.finish_reason === 'string' && choice.finish_reason !== '') finishReason = choice.finish_reason;
      }
      return delivered;
    },
    result() {
      if (!doneSeen && finishReason === null) {
        throw badResponse(
          toolCalls.size > 0 ? 'the stream was cut in the middle of a tool call' : 'the stream ended before it finished (no finish_reason or [DONE])',
          { cut: true, half_tool_call: toolCalls.size > 0 },
        );
      }
      if (!choicesSeen) throw badResponse('the stream carried no choices');
      const response: LlmResponse = {
        content: contentParts.join(''),
        usage: normalizeUsage(usage),
        model: model ?? requestedModel ?? 'unknown',
        finish_reason: finishReason ?? (toolCalls.size > 0 ? 'tool_calls' : 'stop'),
      };
      if (toolCalls.size > 0) {
        const ordered = [...toolCalls.entries()].sort((left, right) => left[0] - right[0]);
        const calls: ToolCall[] = ordered.map(([index, call]) => checkedToolCall(index, call.id, call.name, call.argumentsText));
        response.tool_calls = calls;
      }
      return response;
    },
  };
}

/**
 * Whether a chunk sent twice in a row is a duplication rather than the model repeating a token.
 * Servers that do not stamp chunks (Ollama, vLLM) send byte-identical chunks for repeated tokens,
 * and tokenizers emit digits, spaces and punctuation one by one ("1", "0", "0"), so those may
 * repeat. A second finish, usage, role-only or tool-call start, or a repeated piece of text with
 * letters in it (word tokens carry their leading space, so " the", " the" is a loop or a fault),
 * cannot.
 */
function cannotRepeat(json: Record<string, unknown>): boolean {
  if (json.usage !== undefined && json.usage !== null) return true;
  const choices = Array.isArray(json.choices) ? json.choices : [];
  return choices.some((choice) => {
    if (!isPlainObject(choice)) return false;
    if (typeof choice.finish_reason === 'string' && choice.finish_reason !== '') return true;
    const delta = isPlainObject(choice.delta) ? choice.delta : {};
    const content = typeof delta.content === 'string' ? delta.content : '';
    if (/\p{L}/u.test(content)) return true;
    if (delta.role !== undefined && content === '') return true;
    const toolCalls = Array.isArray(delta.tool_calls) ? delta.tool_calls : [];
    return toolCalls.some((call) => isPlainObject(call) && (typeof call.id === 'string' || (isPlainObject(call.function) && typeof call.function.name === 'string')));
  });
}
