/**
 * Timeouts that fit a real local server, over HTTP on 127.0.0.1: a stream may take
 * `first_token_timeout` to start (a model loading, a long prompt read on a CPU), then `timeout`
 * between bytes; a server that stays silent is given up after one retry, whatever `max_retries`
 * says, so a hung server frees the run in bounded time. Durations are scaled down; nothing here
 * asserts on elapsed time, only on outcomes and request counts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpenAiClient } from '../../src/llm/openai-client.js';
import {
  attemptTimeouts,
  DEFAULT_FIRST_TOKEN_TIMEOUT_MS,
  DEFAULT_IDLE_TIMEOUT_MS,
} from '../../src/llm/model-timeouts.js';
import { resolveLlmCall } from '../../src/llm/resolve-llm-call.js';
import type { LlmResponse } from '../../src/core/model-provider.js';
import { startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.js';

const fast = { baseDelayMs: 1, maxDelayMs: 2, retryAfterCapMs: 5 };
const request = { messages: [{ role: 'user' as const, content: 'hi' }] };
let server: MockOpenAI;
beforeAll(async () => {
  server = await startMockOpenAI({ replies: ['Hello there, slowly.'], chunkSize: 4 });
});
afterAll(() => server.close());

async function streamed(client: ReturnType<typeof createOpenAiClient>, retries: unknown[] = []): Promise<LlmResponse> {
  for await (const part of client.stream(request, undefined, { beforeRetry: (retry) => void retries.push(retry) }))
    if (part.type === 'done') return part.response;
  throw new Error('no done');
}
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: unknown) => error as { code: string; message: string },
  );

describe('model timeouts', () => {
  it("defaults: 120 s to an answer's first byte, 60 s between its bytes; an explicit timeout bounds both", () => {
    expect([DEFAULT_FIRST_TOKEN_TIMEOUT_MS, DEFAULT_IDLE_TIMEOUT_MS]).toEqual([120_000, 60_000]);
    expect(attemptTimeouts({})).toEqual({ firstByteMs: 120_000, idleMs: 60_000 });
    expect(attemptTimeouts({ timeout_ms: 30_000 })).toEqual({ firstByteMs: 30_000, idleMs: 30_000 });
    expect(attemptTimeouts({ timeout_ms: 30_000, first_token_timeout_ms: 240_000 })).toEqual({
      firstByteMs: 240_000,
      idleMs: 30_000,
    });
  });

  it("an explicit timeout also bounds a stream's first byte when first_token_timeout is not given", async () => {
    server.setFault({ type: 'delay', ms: 3_000 });
    const client = createOpenAiClient({ api_base: server.url, timeout_ms: 250, max_retries: 0 }, { retryTiming: fast });
    const error = await failure(streamed(client));
    server.setFault();
    expect(error.code).toBe('LLM_TIMEOUT');
    expect(error.message).toContain('250 ms');
  });

  it('a stream that starts later than `timeout` but within `first_token_timeout` is answered', async () => {
    server.requests.length = 0;
    server.setFault({ type: 'delay', ms: 600, times: 1 });
    const client = createOpenAiClient(
      { api_base: server.url, timeout_ms: 200, first_token_timeout_ms: 5_000, max_retries: 0 },
      { retryTiming: fast },
    );
    expect((await streamed(client)).content).toBe('Hello there, slowly.');
    expect(server.chatRequests).toHaveLength(1);
  });

  it('a stream silent past `first_token_timeout` is LLM_TIMEOUT after one retry, not max_retries', async () => {
    server.requests.length = 0;
    server.setFault({ type: 'delay', ms: 3_000 });
    const client = createOpenAiClient(
      { api_base: server.url, timeout_ms: 5_000, first_token_timeout_ms: 300, max_retries: 5 },
      { retryTiming: fast },
    );
    // Attempts are counted by the client (a loaded server may not have read an aborted request yet).
    const retries: unknown[] = [];
    const error = await failure(streamed(client, retries));
    server.setFault();
    expect(error.code).toBe('LLM_TIMEOUT');
    expect(error.message).toContain('300 ms');
    expect(retries).toHaveLength(1);
  });

  it('a whole answer silent past `timeout` is retried once, then LLM_TIMEOUT', async () => {
    server.requests.length = 0;
    server.setFault({ type: 'delay', ms: 3_000 });
    const client = createOpenAiClient({ api_base: server.url, timeout_ms: 300, max_retries: 4 }, { retryTiming: fast });
    const retries: unknown[] = [];
    const error = await failure(
      client.generate(request, undefined, { beforeRetry: (retry) => void retries.push(retry) }),
    );
    server.setFault();
    expect(error.code).toBe('LLM_TIMEOUT');
    expect(retries).toHaveLength(1);
  });

  it('settings take seconds: timeout and first_token_timeout reach the connection in milliseconds', () => {
    const { connection } = resolveLlmCall({ timeout: 30, first_token_timeout: 240 }, { prompt: 'x' }, {});
    expect(connection).toMatchObject({ timeout_ms: 30_000, first_token_timeout_ms: 240_000 });
  });
});
