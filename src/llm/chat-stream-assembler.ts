/**
 * Assembles a streamed Chat Completion from its SSE `data:` payloads: content deltas in order
 * (with `<think>` thinking taken out, think-tags.ts), reasoning from `reasoning_content` /
 * `reasoning` deltas, tool-call deltas joined by `index` and id, the finish reason, and the usage.
 *
 * Text never proves a fault: servers that do not stamp chunks (Ollama, vLLM, llama.cpp) send two
 * byte-identical chunks whenever the model repeats a token, so repeated chunks are accepted. What
 * is refused is protocol-level: a payload that is not JSON, output after the finish reason, a
 * second finish that contradicts the first, data after `[DONE]`, an error the server reports in
 * the stream (its message quoted, server-error.ts), and at the end a stream that never finished
 * or a tool call that is not complete.
 */
import type { LlmResponse, ToolCall } from '../core/model-provider.js';
import { badResponse, serverReportedError } from './llm-errors.js';
import { checkedToolCall, normalizeUsage, reasoningField } from './parse-chat-completion.js';
import { serverErrorMessage } from './server-error.js';
import { createThinkTagSplitter, joinReasoning } from './think-tags.js';
import { isPlainObject } from '../util/plain-object.js';

/** What one payload adds, for the consumer to forward as stream parts. */
export interface ChunkDelta {
  content: string;
  reasoning: string;
  /** `index` is the call's position in order of appearance (unique per call in this stream). */
  toolCalls: { index: number; name?: string; arguments?: string }[];
}

export interface ChatStreamAssembler {
  /** Takes one `data:` payload. Returns what it added, or `done` for `[DONE]`. Throws LLM_BAD_RESPONSE. */
  accept(data: string): ChunkDelta | 'done';
  /** Ends the content: returns what a partial `<think>` tag held back. */
  flush(): ChunkDelta;
  /** True once `[DONE]` or a finish reason arrived. */
  readonly finished: boolean;
  /** The whole response; throws LLM_BAD_RESPONSE when the stream is not complete. */
  result(): LlmResponse;
}

interface PartialToolCall {
  /** The server's index (or a synthetic one for servers that send none). */
  serverIndex: number;
  /** Position in order of appearance: the `index` of the stream parts. */
  ordinal: number;
  id?: string;
  name: string;
  argumentsText: string;
}

export interface ChatStreamAssemblerOptions {
  /** Values to redact from a server error message quoted in an error. */
  secrets?: readonly string[];
}

/** Creates an assembler for one streamed response. */
export function createChatStreamAssembler(
  requestedModel: string | undefined,
  options: ChatStreamAssemblerOptions = {},
): ChatStreamAssembler {
  const secrets = options.secrets ?? [];
  const splitter = createThinkTagSplitter();
  const fieldReasoning: string[] = [];
  const calls: PartialToolCall[] = [];
  /** The call each server index currently continues (the latest started there). */
  const latestAt = new Map<number, PartialToolCall>();
  let finishReason: string | null = null;
  let doneSeen = false;
  let choicesSeen = false;
  let model: string | undefined;
  let usage: unknown;
  let chunkCount = 0;

  function startCall(serverIndex: number, id: string | undefined): PartialToolCall {
    const call: PartialToolCall = { serverIndex, ordinal: calls.length, name: '', argumentsText: '' };
    if (id !== undefined) call.id = id;
    calls.push(call);
    latestAt.set(serverIndex, call);
    return call;
  }

  /**
   * The call a delta belongs to. A known id continues its call (some servers repeat the id on
   * every delta); a new id starts a call, even at an index already used (Ollama 0.20.x and SGLang
   * send parallel calls whole, each with its own id, all at index 0); no id continues the latest
   * call at the index. Servers that omit `index` (older Ollama) are read the same way.
   */
  function callFor(serverIndex: number | undefined, id: string | undefined): PartialToolCall {
    if (id !== undefined) {
      const known = calls.find((call) => call.id === id);
      if (known !== undefined) return known;
      const latest = serverIndex === undefined ? undefined : latestAt.get(serverIndex);
      // The id arriving after an id-less start of the same call names that call.
      if (latest !== undefined && latest.id === undefined) {
        latest.id = id;
        return latest;
      }
      return startCall(serverIndex ?? nextFreeIndex(), id);
    }
    const latest = serverIndex === undefined ? calls[calls.length - 1] : latestAt.get(serverIndex);
    return latest ?? startCall(serverIndex ?? nextFreeIndex(), undefined);
  }

  function nextFreeIndex(): number {
    return calls.reduce((highest, call) => Math.max(highest, call.serverIndex + 1), 0);
  }

  function acceptToolCallDelta(delta: unknown, delivered: ChunkDelta): void {
    if (!isPlainObject(delta)) throw badResponse('a streamed tool call delta is not an object');
    const fn = isPlainObject(delta.function) ? delta.function : {};
    const id = typeof delta.id === 'string' && delta.id !== '' ? delta.id : undefined;
    const serverIndex =
      typeof delta.index === 'number' && Number.isInteger(delta.index) && delta.index >= 0 ? delta.index : undefined;
    const call = callFor(serverIndex, id);
    const part: { index: number; name?: string; arguments?: string } = { index: call.ordinal };
    if (typeof fn.name === 'string' && fn.name !== '') {
      // Servers send the name once (or repeat it); a different name for one call means chunks were mixed up.
      if (call.name !== '' && call.name !== fn.name)
        throw badResponse(`tool call ${call.ordinal} changed its name mid-stream`);
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

  function acceptText(delta: Record<string, unknown>, delivered: ChunkDelta): void {
    if (typeof delta.content === 'string' && delta.content !== '') {
      const split = splitter.push(delta.content);
      delivered.content += split.answer;
      delivered.reasoning += split.reasoning;
    } else if (delta.content !== undefined && delta.content !== null && typeof delta.content !== 'string') {
      throw badResponse(`stream chunk ${chunkCount} has content that is not a string`);
    }
    const text = reasoningField(delta);
    if (text !== undefined) {
      fieldReasoning.push(text);
      delivered.reasoning += text;
    }
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
      chunkCount++;
      let json: unknown;
      try {
        json = JSON.parse(data);
      } catch {
        throw badResponse(`stream chunk ${chunkCount} is not valid JSON (malformed chunk)`, { chunk: chunkCount });
      }
      if (!isPlainObject(json)) throw badResponse(`stream chunk ${chunkCount} is not a JSON object`);
      // `{"error": …}` (llama.cpp, TGI, OpenAI) or vLLM's `{"object": "error", "message": …}`.
      if ((json.error !== undefined && json.error !== null) || json.object === 'error') {
        throw serverReportedError(serverErrorMessage(json) ?? JSON.stringify(json), 'in its stream', secrets);
      }
      if (typeof json.model === 'string' && json.model !== '') model = json.model;
      if (json.usage !== undefined && json.usage !== null) usage = json.usage;
      const delivered: ChunkDelta = { content: '', reasoning: '', toolCalls: [] };
      const choices = json.choices;
      if (choices === undefined || (Array.isArray(choices) && choices.length === 0)) return delivered;
      if (!Array.isArray(choices)) throw badResponse(`stream chunk ${chunkCount} has choices that are not a list`);
      choicesSeen = true;
      for (const choice of choices) {
        if (!isPlainObject(choice)) throw badResponse(`stream chunk ${chunkCount} has a choice that is not an object`);
        if (typeof choice.index === 'number' && choice.index !== 0) continue; // only the first choice is used
        const delta = isPlainObject(choice.delta) ? choice.delta : isPlainObject(choice.message) ? choice.message : {};
        const carriesOutput =
          (typeof delta.content === 'string' && delta.content !== '') ||
          (Array.isArray(delta.tool_calls) && delta.tool_calls.length > 0);
        // Empty trailers after the finish (usage, timings, the same finish restated) are harmless; output is not.
        if (finishReason !== null && carriesOutput) throw badResponse('the stream sent output after its finish reason');
        acceptText(delta, delivered);
        if (delta.tool_calls !== undefined && delta.tool_calls !== null) {
          if (!Array.isArray(delta.tool_calls))
            throw badResponse(`stream chunk ${chunkCount} has tool_calls that are not a list`);
          for (const toolDelta of delta.tool_calls) acceptToolCallDelta(toolDelta, delivered);
        }
        if (typeof choice.finish_reason === 'string' && choice.finish_reason !== '') {
          if (finishReason !== null && choice.finish_reason !== finishReason) {
            throw badResponse(`the stream finished twice, with "${finishReason}" and then "${choice.finish_reason}"`);
          }
          finishReason = choice.finish_reason;
        }
      }
      return delivered;
    },
    flush() {
      const split = splitter.finish();
      return { content: split.answer, reasoning: split.reasoning, toolCalls: [] };
    },
    result() {
      if (!doneSeen && finishReason === null) {
        throw badResponse(
          calls.length > 0
            ? 'the stream was cut in the middle of a tool call'
            : 'the stream ended before it finished (no finish_reason or [DONE])',
          { cut: true, half_tool_call: calls.length > 0 },
        );
      }
      if (!choicesSeen)
        throw badResponse('the stream carried no choices (no answer and no error message from the server)');
      splitter.finish();
      const split = splitter.result();
      const response: LlmResponse = {
        content: split.answer,
        usage: normalizeUsage(usage),
        model: model ?? requestedModel ?? 'unknown',
        finish_reason: finishReason ?? (calls.length > 0 ? 'tool_calls' : 'stop'),
      };
      const reasoning = joinReasoning(fieldReasoning.join(''), split.reasoning);
      if (reasoning !== undefined) response.reasoning = reasoning;
      if (calls.length > 0) {
        const ordered = [...calls].sort(
          (left, right) => left.serverIndex - right.serverIndex || left.ordinal - right.ordinal,
        );
        const toolCalls: ToolCall[] = ordered.map((call, position) =>
          checkedToolCall(position, call.id, call.name, call.argumentsText),
        );
        response.tool_calls = toolCalls;
      }
      return response;
    },
  };
}
