/**
 * Replay of a recorded run: an ModelProvider that answers each model call with the response recorded
 * in a trace (events `llm_request` / `llm_response` captured with payload capture on), in order, with
 * no network — and that checks each new request against the recorded one. The first request that
 * differs is an LLM_BAD_RESPONSE whose details say which call and which field, so a real run on a
 * local model becomes a deterministic regression test (`tea-edge run --replay <trace-dir>/<run-id>`).
 */
import { AgentError } from '../core/agent-error.js';
import type { AgentEvent } from '../core/events.js';
import type { ModelProvider, LlmRequest, LlmResponse, LlmStreamPart, ToolCall } from '../core/model-provider.js';
import { normalizeUsage } from './parse-chat-completion.js';
import { REDACTED } from './redact.js';
import { splitContent } from './scripted-model.js';
import { throwIfAborted } from '../util/abort.js';
import { quoteText } from '../util/cut-text.js';

/** One recorded model call: what was asked and what came back (or the error). */
export interface RecordedCall {
  node: string | undefined;
  request: { messages: { role: string; content: string | null }[] };
  response?: LlmResponse;
  error?: { code: string; message: string };
}

/** A difference between a new request and the recording. */
export interface ReplayMismatch {
  call: number;
  field: string;
  recorded: unknown;
  actual: unknown;
}

export interface ReplayProvider extends ModelProvider {
  /** Differences found so far (with `strict: false`, calls go on past them). */
  readonly mismatches: ReplayMismatch[];
  /** Recorded calls not replayed yet. */
  readonly remaining: number;
}

export interface ReplayOptions {
  /** Throw at the first differing request (default true); else record it and answer anyway. */
  strict?: boolean;
}

const TRUNCATION_MARKER = /…\[truncated \d+ (?:characters|bytes)\]$/;

/** Pairs each llm_response with the earliest unanswered llm_request of the same node. */
export function recordedCalls(events: AgentEvent[]): RecordedCall[] {
  const pending: { node: string | undefined; request: RecordedCall['request'] | undefined; call?: RecordedCall }[] = [];
  const calls: RecordedCall[] = [];
  for (const event of events) {
    if (event.type === 'llm_request') {
      const request = event.data.request as RecordedCall['request'] | undefined;
      pending.push({ node: event.node, request });
    } else if (event.type === 'llm_response') {
      const index = pending.findIndex((entry) => entry.node === event.node);
      if (index === -1) continue;
      const [entry] = pending.splice(index, 1);
      const data = event.data;
      const response = data.response;
      if (entry!.request === undefined || (response === undefined && data.error === undefined)) {
        throw new AgentError(
          'INVALID_PARAMS',
          'the trace has no recorded model payloads: record the run with payload capture on (tea-edge run --record, or settings.trace.capture_payloads: true)',
        );
      }
      const call: RecordedCall = { node: event.node, request: entry!.request };
      if (data.error !== undefined) call.error = data.error as { code: string; message: string };
      else call.response = toResponse(response as Record<string, unknown>, data.model);
      calls.push(call);
    }
  }
  return calls;
}

/**
 * Creates a provider answering from a recorded run's events.
 * @example
 * const provider = createReplayProvider(await traceStore.readEvents(runId));
 * runAgent(agent, input, { llm: { providerFactory: () => provider } });
 */
export function createReplayProvider(events: AgentEvent[], options: ReplayOptions = {}): ReplayProvider {
  const calls = recordedCalls(events);
  if (calls.length === 0) throw new AgentError('INVALID_PARAMS', 'the trace has no recorded model calls to replay');
  const mismatches: ReplayMismatch[] = [];
  let position = 0;

  function answer(request: LlmRequest): LlmResponse {
    const callNumber = position + 1;
    const recorded = calls[position];
    if (recorded === undefined) {
      throw new AgentError(
        'LLM_BAD_RESPONSE',
        `replay: call ${callNumber} was not in the recording (it has ${calls.length} calls)`,
        {
          details: { replay: true, call: callNumber, retryable: false },
        },
      );
    }
    position++;
    const found = compareRequests(callNumber, recorded.request, request);
    if (found !== undefined) {
      mismatches.push(found);
      if (options.strict !== false) {
        throw new AgentError(
          'LLM_BAD_RESPONSE',
          `replay: call ${callNumber} differs from the recording at ${found.field}: recorded ${preview(found.recorded)}, now ${preview(found.actual)}`,
          {
            details: { replay: true, retryable: false, mismatch: found },
          },
        );
      }
    }
    if (recorded.error !== undefined) {
      throw new AgentError(recorded.error.code as `LLM_HTTP_${number}`, `replayed: ${recorded.error.message}`, {
        details: { replay: true, retryable: false },
      });
    }
    return structuredClone(recorded.response!);
  }

  return {
    mismatches,
    get remaining() {
      return calls.length - position;
    },
    async generate(request, signal) {
      throwIfAborted(signal);
      return answer(request);
    },
    async *stream(request, signal): AsyncGenerator<LlmStreamPart> {
      throwIfAborted(signal);
      const response = answer(request);
      if (response.reasoning !== undefined) yield { type: 'reasoning_delta', content: response.reasoning };
      for (const piece of splitContent(response.content, undefined)) {
        yield { type: 'delta', content: piece };
        throwIfAborted(signal);
      }
      for (const [index, call] of (response.tool_calls ?? []).entries()) {
        yield { type: 'tool_call_delta', index, name: call.function.name, arguments: call.function.arguments };
        throwIfAborted(signal);
      }
      yield { type: 'done', response };
    },
  };
}

function compareRequests(
  call: number,
  recorded: RecordedCall['request'],
  actual: LlmRequest,
): ReplayMismatch | undefined {
  const recordedMessages = recorded.messages ?? [];
  if (recordedMessages.length !== actual.messages.length) {
    return { call, field: 'messages.length', recorded: recordedMessages.length, actual: actual.messages.length };
  }
  for (let index = 0; index < recordedMessages.length; index++) {
    const before = recordedMessages[index]!;
    const now = actual.messages[index]!;
    if (before.role !== now.role)
      return { call, field: `messages[${index}].role`, recorded: before.role, actual: now.role };
    if (!textMatches(before.content, now.content))
      return { call, field: `messages[${index}].content`, recorded: before.content, actual: now.content };
  }
  return undefined;
}

/** Equal, allowing for what capture changed: `[REDACTED]` stands for any text, a truncation marker for the rest. */
export function textMatches(recorded: string | null, actual: string | null): boolean {
  if (recorded === actual) return true;
  if (recorded === null || actual === null) return false;
  const truncated = TRUNCATION_MARKER.test(recorded);
  const pattern = recorded.replace(TRUNCATION_MARKER, '');
  const pieces = pattern.split(REDACTED);
  if (pieces.length === 1) return truncated ? actual.startsWith(pattern) : false;
  let offset = 0;
  for (const [index, piece] of pieces.entries()) {
    const found = index === 0 ? (actual.startsWith(piece) ? 0 : -1) : actual.indexOf(piece, offset);
    if (found === -1) return false;
    offset = found + piece.length;
  }
  return truncated || offset === actual.length || pieces.at(-1) === '';
}

function toResponse(data: Record<string, unknown>, model: unknown): LlmResponse {
  const response: LlmResponse = {
    content: typeof data.content === 'string' ? data.content : '',
    usage: normalizeUsage(data.usage),
    model: typeof model === 'string' ? model : 'replay',
    finish_reason: typeof data.finish_reason === 'string' ? data.finish_reason : null,
  };
  if (Array.isArray(data.tool_calls) && data.tool_calls.length > 0) response.tool_calls = data.tool_calls as ToolCall[];
  if (typeof data.reasoning === 'string' && data.reasoning !== '') response.reasoning = data.reasoning;
  return response;
}

function preview(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return quoteText(text, 120);
}
