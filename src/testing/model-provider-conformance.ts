/**
 * The ModelProvider conformance suite: every implementation of the model seam (src/llm/types.ts)
 * runs these cases — the OpenAI-compatible client against the mock server (in Node, workerd and
 * Chromium), the scripted model and replay. A case describes the calls it will make as a
 * `Scenario` (each request and what the back end should answer: a reply or a fault); the factory
 * turns the scenario into a provider by its own means (mock server replies and faults, a script,
 * a recording) and the case checks what the seam promises.
 *
 * @example
 * describeModelProviderConformance('scripted', async (scenario) => {
 *   const model = createScriptedModel(scenario.calls.map(toScriptEntry));
 *   return { provider: model, attempts: () => model.calls.length };
 * }, { features: ['abortInFlight'] });
 */
import { afterEach, describe, expect, it } from 'vitest';
import { AgentError } from '../core/agent-error.js';
import type { LlmCallHooks, LlmRequest, LlmResponse, LlmStreamPart, ModelProvider } from '../core/model-provider.js';

/** What the back end answers for one call. */
export interface ConformanceReply {
  content: string;
  tool_calls?: { name: string; arguments: Record<string, unknown> }[];
  usage?: { prompt_tokens: number; completion_tokens: number };
}

/** A failure the back end is made to produce, and the code every provider must report for it. */
export type ConformanceFault = 'http_404' | 'http_500' | 'unavailable' | 'timeout' | 'broken_stream' | 'not_json';

export const FAULT_CODES: Readonly<Record<ConformanceFault, string>> = {
  http_404: 'LLM_HTTP_404',
  http_500: 'LLM_HTTP_500',
  unavailable: 'LLM_UNAVAILABLE',
  timeout: 'LLM_TIMEOUT',
  broken_stream: 'LLM_BAD_RESPONSE',
  not_json: 'LLM_BAD_RESPONSE',
};

/**
 * A call's outcome: a reply, or a fault. With `times` the fault hits only the first `times`
 * attempts and `reply` answers the next one (only providers with retries see that second part).
 */
export type ConformanceOutcome =
  | ConformanceReply
  | { fault: ConformanceFault; times?: number; reply?: ConformanceReply };

export interface ScenarioCall {
  request: LlmRequest;
  outcome: ConformanceOutcome;
}

export interface Scenario {
  /** The calls of the case, in order; a fault is only ever on the last one. */
  calls: ScenarioCall[];
  /** Retries after the first attempt (providers that retry); 0 unless a case says otherwise. */
  maxRetries: number;
  /** The back end takes seconds before it answers (for aborts in flight). */
  slow?: boolean;
}

export interface ProviderUnderTest {
  provider: ModelProvider;
  /** How many attempts reached the back end so far (HTTP requests, script entries used, recorded calls replayed). */
  attempts(): number;
  cleanup?: () => Promise<void> | void;
}

export type ProviderFactory = (scenario: Scenario) => Promise<ProviderUnderTest>;

/** Behaviours an implementation may legitimately not have. */
export type ModelProviderFeature =
  /** Retries retryable failures (429, 5xx, timeouts) and announces each retry through `beforeRetry`. */
  | 'retries'
  /** Can be slow, so a signal aborted while a call is in flight is observable. */
  | 'abortInFlight'
  /** A `beforeRetry` hook runs where the retries happen, so one that throws stops them. */
  | 'throwingHooks'
  /** The consumer's signal reaches the provider before its next part (in-process providers). */
  | 'abortBetweenParts';

export interface ModelProviderConformanceOptions {
  features?: ModelProviderFeature[];
  /** Faults the implementation can be made to produce (default: all). */
  faults?: ConformanceFault[];
}

export function isFault(
  outcome: ConformanceOutcome,
): outcome is Extract<ConformanceOutcome, { fault: ConformanceFault }> {
  return 'fault' in outcome;
}

const ALL_FAULTS = Object.keys(FAULT_CODES) as ConformanceFault[];

const ask = (content: string, extra: Partial<LlmRequest> = {}): LlmRequest => ({
  model: 'mock-model',
  messages: [{ role: 'user', content }],
  ...extra,
});
const TEXT: ConformanceReply = {
  content: 'Green tea is steeped at about eighty degrees.',
  usage: { prompt_tokens: 7, completion_tokens: 11 },
};
const TOOLS: ConformanceReply = {
  content: '',
  tool_calls: [
    { name: 'math_calculate', arguments: { expression: '2+2' } },
    { name: 'web_search', arguments: { query: 'oolong', limit: 3 } },
  ],
};
const LONG: ConformanceReply = {
  content: 'one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen',
};

export interface Collected {
  parts: LlmStreamPart[];
  deltas: string;
  done: LlmResponse | undefined;
  /** The error the iteration rejected with, if any. */
  error: unknown;
}

/** Reads a stream to its end (or its error); `onPart` may stop early by returning 'stop'. */
export async function collect(
  stream: AsyncIterable<LlmStreamPart>,
  // biome-ignore lint/suspicious/noConfusingVoidType: callers pass plain `(part) => void` callbacks as well as stoppers
  onPart?: (part: LlmStreamPart) => 'stop' | void,
): Promise<Collected> {
  const parts: LlmStreamPart[] = [];
  let error: unknown;
  try {
    for await (const part of stream) {
      parts.push(part);
      if (onPart?.(part) === 'stop') break;
    }
  } catch (caught) {
    error = caught;
  }
  const done = parts.find((part) => part.type === 'done');
  const deltas = parts.map((part) => (part.type === 'delta' ? part.content : '')).join('');
  return { parts, deltas, done: done?.type === 'done' ? done.response : undefined, error };
}

/** The rejection of a promise; fails the test when it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail, it answered');
}

function expectTyped(error: unknown, code: string): void {
  expect(AgentError.isInstance(error), `expected an AgentError, got ${String(error)}`).toBe(true);
  const typed = error as AgentError;
  expect(typed.code).toBe(code);
  expect(typed.message.length).toBeGreaterThan(0);
}

function expectReply(response: LlmResponse | undefined, reply: ConformanceReply): void {
  expect(response).toBeDefined();
  expect(response!.content).toBe(reply.content);
  expect(typeof response!.model).toBe('string');
  expect(response!.model.length).toBeGreaterThan(0);
  const usage = response!.usage;
  for (const count of [usage.prompt_tokens, usage.completion_tokens, usage.total_tokens])
    expect(Number.isInteger(count) && count >= 0).toBe(true);
  expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens);
  if (reply.usage !== undefined) expect(usage).toMatchObject(reply.usage);
  if (reply.tool_calls === undefined) {
    expect(response!.tool_calls ?? []).toEqual([]);
    expect(response!.finish_reason).toBe('stop');
    return;
  }
  expect(response!.finish_reason).toBe('tool_calls');
  const calls = response!.tool_calls ?? [];
  expect(calls.map((call) => call.function.name)).toEqual(reply.tool_calls.map((call) => call.name));
  for (const [index, call] of calls.entries()) {
    expect(call.type).toBe('function');
    expect(typeof call.id === 'string' && call.id.length > 0).toBe(true);
    expect(JSON.parse(call.function.arguments)).toEqual(reply.tool_calls[index]!.arguments);
  }
  expect(new Set(calls.map((call) => call.id)).size).toBe(calls.length);
}

/** A well-formed stream: deltas, then exactly one `done` as the last part, agreeing with the deltas. */
function expectWellFormedStream(collected: Collected, reply: ConformanceReply): void {
  expect(collected.error).toBeUndefined();
  expect(collected.parts.filter((part) => part.type === 'done')).toHaveLength(1);
  expect(collected.parts.at(-1)?.type).toBe('done');
  expectReply(collected.done, reply);
  expect(collected.deltas).toBe(reply.content);
  if (reply.content !== '') expect(collected.parts.filter((part) => part.type === 'delta').length).toBeGreaterThan(1);
  for (const part of collected.parts) if (part.type === 'delta') expect(part.content).not.toBe('');
  // Tool-call deltas add up, per index, to the final calls.
  const byIndex = new Map<number, { name: string; arguments: string }>();
  for (const part of collected.parts) {
    if (part.type !== 'tool_call_delta') continue;
    const entry = byIndex.get(part.index) ?? { name: '', arguments: '' };
    entry.name += part.name ?? '';
    entry.arguments += part.arguments ?? '';
    byIndex.set(part.index, entry);
  }
  const calls = collected.done?.tool_calls ?? [];
  expect([...byIndex.keys()].sort()).toEqual(calls.map((_, index) => index));
  for (const [index, call] of calls.entries()) {
    expect(byIndex.get(index)).toEqual({ name: call.function.name, arguments: call.function.arguments });
  }
}

/**
 * Registers the suite for one implementation. Each case builds a fresh provider from `factory`
 * and calls its `cleanup` afterwards.
 */
export function describeModelProviderConformance(
  name: string,
  factory: ProviderFactory,
  options: ModelProviderConformanceOptions = {},
): void {
  const features = new Set(options.features ?? []);
  const faults = options.faults ?? ALL_FAULTS;
  const cleanups: (() => Promise<void> | void)[] = [];

  async function open(calls: ScenarioCall[], extra: Partial<Scenario> = {}): Promise<ProviderUnderTest> {
    const opened = await factory({ calls, maxRetries: 0, ...extra });
    if (opened.cleanup !== undefined) cleanups.push(opened.cleanup);
    return opened;
  }

  describe(`ModelProvider conformance: ${name}`, () => {
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0)) await cleanup();
    });

    describe('answers', () => {
      it('generate returns the content, model, finish reason and consistent usage', async () => {
        const request = ask('How hot for green tea?');
        const { provider, attempts } = await open([{ request, outcome: TEXT }]);
        expectReply(await provider.generate(request), TEXT);
        expect(attempts()).toBe(1);
      });

      it('generate returns tool calls with ids, names and JSON arguments', async () => {
        const request = ask('Compute and search', {
          tools: [
            { type: 'function', function: { name: 'math_calculate' } },
            { type: 'function', function: { name: 'web_search' } },
          ],
        });
        const { provider } = await open([{ request, outcome: TOOLS }]);
        expectReply(await provider.generate(request), TOOLS);
      });

      it('stream yields deltas that add up to the one final response, which comes last', async () => {
        const request = ask('Tell me about tea');
        const { provider, attempts } = await open([{ request, outcome: TEXT }]);
        expectWellFormedStream(await collect(provider.stream(request)), TEXT);
        expect(attempts()).toBe(1);
      });

      it('stream yields tool-call deltas that add up to the final tool calls', async () => {
        const request = ask('Stream tools', { tools: [{ type: 'function', function: { name: 'math_calculate' } }] });
        const { provider } = await open([{ request, outcome: TOOLS }]);
        expectWellFormedStream(await collect(provider.stream(request)), TOOLS);
      });

      it('stream and generate give the same response for the same answer', async () => {
        const request = ask('Same question twice');
        const { provider } = await open([
          { request, outcome: TEXT },
          { request, outcome: TEXT },
        ]);
        const generated = await provider.generate(request);
        const streamed = await collect(provider.stream(request));
        expect(streamed.done).toEqual(generated);
      });

      it('answers successive calls in order, without mixing them up', async () => {
        const replies = ['first answer', 'second answer', 'third answer'].map((content) => ({ content }));
        const calls = replies.map((reply, index) => ({ request: ask(`question ${index + 1}`), outcome: reply }));
        const { provider, attempts } = await open(calls);
        expectReply(await provider.generate(calls[0]!.request), replies[0]!);
        expectWellFormedStream(await collect(provider.stream(calls[1]!.request)), replies[1]!);
        expectReply(await provider.generate(calls[2]!.request), replies[2]!);
        expect(attempts()).toBe(3);
      });

      it('leaves the request it was given unchanged', async () => {
        const request = ask('Do not touch', {
          temperature: 0.3,
          tools: [{ type: 'function', function: { name: 'math_calculate', parameters: { type: 'object' } } }],
        });
        const before = structuredClone(request);
        const { provider } = await open([
          { request, outcome: TOOLS },
          { request, outcome: TOOLS },
        ]);
        await provider.generate(request);
        await collect(provider.stream(request));
        expect(request).toEqual(before);
      });

      it('a consumer that stops a stream early leaves the provider usable', async () => {
        const first = ask('Long answer, please');
        const second = ask('And another');
        const { provider } = await open([
          { request: first, outcome: LONG },
          { request: second, outcome: TEXT },
        ]);
        const stopped = await collect(provider.stream(first), (part) => (part.type === 'delta' ? 'stop' : undefined));
        expect(stopped.error).toBeUndefined();
        expect(stopped.parts).toHaveLength(1);
        expect(stopped.done).toBeUndefined();
        expectReply(await provider.generate(second), TEXT);
      });
    });

    describe('failures are typed', () => {
      for (const fault of faults) {
        it(`${fault}: generate rejects with ${FAULT_CODES[fault]}`, async () => {
          const request = ask(`provoke ${fault}`);
          const { provider } = await open([{ request, outcome: { fault } }]);
          expectTyped(await rejection(provider.generate(request)), FAULT_CODES[fault]);
        });

        it(`${fault}: stream rejects with ${FAULT_CODES[fault]} and never yields a final response`, async () => {
          const request = ask(`provoke ${fault} while streaming`);
          const { provider } = await open([{ request, outcome: { fault } }]);
          const collected = await collect(provider.stream(request));
          expectTyped(collected.error, FAULT_CODES[fault]);
          expect(collected.done).toBeUndefined();
        });
      }
    });

    describe('cancellation', () => {
      it('an already aborted signal rejects generate and stream with CANCELLED before anything is asked', async () => {
        const request = ask('never asked');
        const { provider, attempts } = await open([
          { request, outcome: TEXT },
          { request, outcome: TEXT },
        ]);
        const signal = AbortSignal.abort();
        expectTyped(await rejection(provider.generate(request, signal)), 'CANCELLED');
        const collected = await collect(provider.stream(request, signal));
        expectTyped(collected.error, 'CANCELLED');
        expect(collected.parts).toEqual([]);
        expect(attempts()).toBe(0);
      });

      it.skipIf(!features.has('abortBetweenParts'))(
        'a signal aborted between stream parts stops the stream with CANCELLED',
        async () => {
          const request = ask('Long answer, then stop');
          const { provider } = await open([{ request, outcome: LONG }]);
          const controller = new AbortController();
          const collected = await collect(provider.stream(request, controller.signal), (part) => {
            if (part.type === 'delta') controller.abort();
          });
          expectTyped(collected.error, 'CANCELLED');
          expect(collected.done).toBeUndefined();
        },
      );

      it.skipIf(!features.has('abortInFlight'))(
        'a signal aborted while a call is in flight rejects it with CANCELLED',
        async () => {
          const request = ask('slow question');
          const { provider } = await open(
            [
              { request, outcome: TEXT },
              { request, outcome: TEXT },
            ],
            { slow: true },
          );
          const controller = new AbortController();
          const pending = rejection(provider.generate(request, controller.signal));
          setTimeout(() => controller.abort(), 50);
          expectTyped(await pending, 'CANCELLED');
          const streamController = new AbortController();
          const streaming = collect(provider.stream(request, streamController.signal));
          setTimeout(() => streamController.abort(), 50);
          const collected = await streaming;
          expectTyped(collected.error, 'CANCELLED');
          expect(collected.parts).toEqual([]);
        },
      );
    });

    describe('retries', () => {
      if (!features.has('retries')) {
        it('a failure is final: one attempt, and beforeRetry is never called', async () => {
          const request = ask('fail once');
          const { provider, attempts } = await open(
            [{ request, outcome: { fault: 'http_500', times: 1, reply: TEXT } }],
            { maxRetries: 2 },
          );
          const retries: unknown[] = [];
          expectTyped(
            await rejection(
              provider.generate(request, undefined, { beforeRetry: (retry) => void retries.push(retry) }),
            ),
            'LLM_HTTP_500',
          );
          expect(retries).toEqual([]);
          expect(attempts()).toBe(1);
        });
        return;
      }

      it('a retryable failure is retried, announced through beforeRetry, and the answer returned', async () => {
        const request = ask('fail then answer');
        const { provider, attempts } = await open(
          [{ request, outcome: { fault: 'http_500', times: 1, reply: TEXT } }],
          { maxRetries: 2 },
        );
        const retries: Parameters<NonNullable<LlmCallHooks['beforeRetry']>>[0][] = [];
        expectReply(
          await provider.generate(request, undefined, { beforeRetry: (retry) => void retries.push(retry) }),
          TEXT,
        );
        expect(retries).toHaveLength(1);
        expect(retries[0]).toMatchObject({ attempt: 2, error: { code: 'LLM_HTTP_500' } });
        expect(retries[0]!.delay_ms).toBeGreaterThanOrEqual(0);
        expect(attempts()).toBe(2);
      });

      it('a stream is retried before its first part, so no part is delivered twice', async () => {
        const request = ask('fail then stream');
        const { provider, attempts } = await open([{ request, outcome: { fault: 'timeout', times: 1, reply: TEXT } }], {
          maxRetries: 1,
        });
        const retries: unknown[] = [];
        expectWellFormedStream(
          await collect(provider.stream(request, undefined, { beforeRetry: (retry) => void retries.push(retry) })),
          TEXT,
        );
        expect(retries).toHaveLength(1);
        expect(attempts()).toBe(2);
      });

      it('gives up after maxRetries with the last typed error', async () => {
        const request = ask('always failing');
        const { provider, attempts } = await open([{ request, outcome: { fault: 'http_500' } }], { maxRetries: 2 });
        const retries: unknown[] = [];
        expectTyped(
          await rejection(provider.generate(request, undefined, { beforeRetry: (retry) => void retries.push(retry) })),
          'LLM_HTTP_500',
        );
        expect(retries).toHaveLength(2);
        expect(attempts()).toBe(3);
      });

      it('does not retry what a retry cannot cure (404, a broken body)', async () => {
        for (const fault of ['http_404', 'broken_stream'] as const) {
          const request = ask(`no retry for ${fault}`);
          const { provider, attempts } = await open([{ request, outcome: { fault, times: 1, reply: TEXT } }], {
            maxRetries: 2,
          });
          expectTyped(await rejection(provider.generate(request)), FAULT_CODES[fault]);
          expect(attempts()).toBe(1);
        }
      });

      it.skipIf(!features.has('throwingHooks'))(
        'a beforeRetry hook that throws stops the retries with its error',
        async () => {
          const request = ask('budget stops retries');
          const { provider, attempts } = await open([{ request, outcome: { fault: 'http_500' } }], { maxRetries: 3 });
          const budget = new AgentError('BUDGET_EXCEEDED', 'max_llm_calls reached');
          const error = await rejection(
            provider.generate(request, undefined, {
              beforeRetry: () => {
                throw budget;
              },
            }),
          );
          expect(error).toBe(budget);
          expect(attempts()).toBe(1);
        },
      );
    });
  });
}
