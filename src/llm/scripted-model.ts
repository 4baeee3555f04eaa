/**
 * The scripted model (docs/spec.md#43-scripted-model): a deterministic ModelProvider that answers from a script instead
 * of a server, so agents can be tested and examples run with no model. It answers in order from a
 * list, or by the first rule matching the last user message; runs out → LLM_BAD_RESPONSE naming
 * the call. Every answer is labelled `model: "scripted"`, and every request is recorded in `calls`.
 */
import { AgentError } from '../core/agent-error.js';
import type { ModelProvider, LlmRequest, LlmResponse, LlmStreamPart, TokenUsage } from '../core/model-provider.js';
import { readScript, type ScriptedInput, type ScriptedResponse, type ScriptedScript } from './scripted-script.js';
import { sleep, throwIfAborted } from '../util/abort.js';
import { splitThinking } from './think-tags.js';
import { quoteText } from '../util/cut-text.js';

export const SCRIPTED_MODEL_NAME = 'scripted';

const SCRIPTED_MARKER = Symbol.for('tea-edge.ScriptedModel');

/** True for providers made by `createScriptedModel` (so callers can label their calls as scripted). */
export function isScriptedModel(provider: unknown): provider is ScriptedModel {
  return (
    typeof provider === 'object' && provider !== null && (provider as Record<symbol, unknown>)[SCRIPTED_MARKER] === true
  );
}

/** A scripted provider; `calls` lists the requests it received, in order. */
export interface ScriptedModel extends ModelProvider {
  readonly calls: LlmRequest[];
  /** How many responses of a list script are left (undefined for rules). */
  readonly remaining: number | undefined;
}

/**
 * Creates a scripted model from a list of responses or rules (see `readScript` for shapes).
 * Throws INVALID_PARAMS for a malformed script.
 * @example
 * const model = createScriptedModel(['{"name": "Alice"}', { tool_calls: [{ name: 'math_calculate', arguments: { expression: '2+2' } }] }]);
 * const response = await model.generate({ messages: [{ role: 'user', content: 'Hi' }] });
 */
export function createScriptedModel(input: ScriptedInput, options: { startAt?: number } = {}): ScriptedModel {
  const script: ScriptedScript = readScript(input);
  const calls: LlmRequest[] = [];
  // A resumed run continues the list where the interrupted run left it (see ModelCallerEnvironment.scriptedCalls).
  let position = options.startAt ?? 0;

  function next(request: LlmRequest): ScriptedResponse {
    calls.push(request);
    const callNumber = calls.length;
    if (script.kind === 'list') {
      const response = script.responses[position];
      if (response === undefined) {
        throw new AgentError(
          'LLM_BAD_RESPONSE',
          `scripted model has no response left for call ${callNumber} (the script has ${script.responses.length})`,
          {
            details: { scripted: true, call: callNumber, retryable: false },
          },
        );
      }
      position++;
      return response;
    }
    const text = lastUserMessage(request);
    for (const rule of script.rules) if (rule.matches(text)) return rule.response;
    if (script.fallback !== undefined) return script.fallback;
    throw new AgentError(
      'LLM_BAD_RESPONSE',
      `scripted model has no rule matching call ${callNumber} (last user message ${quoteText(text, 80)})`,
      {
        details: {
          scripted: true,
          call: callNumber,
          retryable: false,
          rules: script.rules.map((rule) => rule.description),
        },
      },
    );
  }

  async function answer(
    request: LlmRequest,
    signal: AbortSignal | undefined,
  ): Promise<{ scripted: ScriptedResponse; response: LlmResponse }> {
    throwIfAborted(signal);
    const scripted = next(request);
    if (scripted.delay_ms !== undefined && scripted.delay_ms > 0) await sleep(scripted.delay_ms, signal);
    if (scripted.error !== undefined) {
      throw new AgentError(scripted.error.code as `LLM_HTTP_${number}`, scripted.error.message, {
        details: { scripted: true, retryable: false },
      });
    }
    // A scripted reasoning model's `<think>` is taken out as a server's would be (think-tags.ts).
    const split = splitThinking(scripted.content);
    const response: LlmResponse = {
      content: split.answer,
      usage: usageFor(request, scripted),
      model: SCRIPTED_MODEL_NAME,
      finish_reason: scripted.finish_reason,
    };
    if (split.reasoning !== undefined) response.reasoning = split.reasoning;
    if (scripted.tool_calls !== undefined && scripted.tool_calls.length > 0) {
      response.tool_calls = scripted.tool_calls.map((call) => ({ ...call, function: { ...call.function } }));
    }
    return { scripted, response };
  }

  const model: ScriptedModel = {
    calls,
    get remaining() {
      return script.kind === 'list' ? script.responses.length - position : undefined;
    },
    async generate(request, signal) {
      return (await answer(request, signal)).response;
    },
    async *stream(request, signal): AsyncGenerator<LlmStreamPart> {
      const { scripted, response } = await answer(request, signal);
      if (response.reasoning !== undefined) yield { type: 'reasoning_delta', content: response.reasoning };
      for (const piece of splitContent(response.content, scripted.stream_chunks)) {
        throwIfAborted(signal);
        yield { type: 'delta', content: piece };
      }
      for (const [index, call] of (response.tool_calls ?? []).entries()) {
        yield { type: 'tool_call_delta', index, name: call.function.name, arguments: call.function.arguments };
      }
      yield { type: 'done', response };
    },
  };
  Object.defineProperty(model, SCRIPTED_MARKER, { value: true });
  return model;
}

/** The text of the last user message ('' when none). */
export function lastUserMessage(request: LlmRequest): string {
  for (let index = request.messages.length - 1; index >= 0; index--) {
    const message = request.messages[index];
    if (message !== undefined && message.role === 'user') return message.content ?? '';
  }
  return '';
}

/** Splits text into `count` near-equal pieces, or by words (spaces kept with the word before). */
export function splitContent(content: string, count: number | undefined): string[] {
  if (content === '') return [];
  if (count === undefined) return content.match(/\S+\s*|\s+/g) ?? [content];
  const characters = Array.from(content);
  const size = Math.max(1, Math.ceil(characters.length / count));
  const pieces: string[] = [];
  for (let start = 0; start < characters.length; start += size)
    pieces.push(characters.slice(start, start + size).join(''));
  return pieces;
}

/** Given usage, else a deterministic estimate (about four characters per token). */
function usageFor(request: LlmRequest, scripted: ScriptedResponse): TokenUsage {
  const promptCharacters = request.messages.reduce((sum, message) => sum + (message.content ?? '').length, 0);
  const completionCharacters =
    scripted.content.length +
    (scripted.tool_calls ?? []).reduce((sum, call) => sum + call.function.arguments.length, 0);
  const prompt = scripted.usage?.prompt_tokens ?? Math.ceil(promptCharacters / 4);
  const completion = scripted.usage?.completion_tokens ?? Math.ceil(completionCharacters / 4);
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: scripted.usage?.total_tokens ?? prompt + completion,
  };
}
