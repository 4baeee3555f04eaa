import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createOpenAiClient } from '../../src/llm/openai-client.js';
import type { LlmRequest, LlmResponse, LlmStreamPart } from '../../src/core/model-provider.js';
import { startMockOpenAI, type MockOpenAI, type MockReply } from '../support/mock-openai-server.js';

const CANARY = 'sk-canary-0123456789abcdef';
const request: LlmRequest = { model: 'mock-model', messages: [{ role: 'user', content: 'Hi' }] };
const fastRetries = { baseDelayMs: 5, maxDelayMs: 20, retryAfterCapMs: 200 };
let server: MockOpenAI;

beforeAll(async () => {
  server = await startMockOpenAI({ chunkSize: 3 });
});
afterAll(() => server.close());
beforeEach(() => {
  server.setFault();
  server.setReplies(['Hello there, tea drinker.']);
  server.requests.length = 0;
});

function client(overrides: { timeout_ms?: number; max_retries?: number } = {}) {
  return createOpenAiClient(
    { api_base: server.url, api_key: CANARY, max_retries: 2, timeout_ms: 2_000, ...overrides },
    { retryTiming: fastRetries },
  );
}

async function collect(
  parts: AsyncIterable<LlmStreamPart>,
): Promise<{ deltas: string[]; toolDeltas: LlmStreamPart[]; response: LlmResponse | undefined }> {
  const deltas: string[] = [];
  const toolDeltas: LlmStreamPart[] = [];
  let response: LlmResponse | undefined;
  for await (const part of parts) {
    if (part.type === 'delta') deltas.push(part.content);
    else if (part.type === 'tool_call_delta') toolDeltas.push(part);
    else if (part.type === 'done') response = part.response;
  }
  return { deltas, toolDeltas, response };
}

async function failure(promise: Promise<unknown>): Promise<{ code: string; message: string; text: string }> {
  try {
    await promise;
  } catch (error) {
    const typed = error as { code: string; message: string; details?: unknown };
    return {
      code: typed.code,
      message: typed.message,
      text: JSON.stringify({ message: typed.message, details: typed.details }),
    };
  }
  throw new Error('expected a failure');
}

describe('createOpenAiClient against the mock server', () => {
  it('sends the request fields and an Authorization header, and parses the completion', async () => {
    const response = await client().generate({
      ...request,
      temperature: 0.2,
      max_tokens: 50,
      response_format: { type: 'json_schema', json_schema: { name: 'person', schema: { type: 'object' } } },
      tools: [{ type: 'function', function: { name: 'add', parameters: { type: 'object' } } }],
      tool_choice: 'auto',
    });
    expect(response).toMatchObject({
      content: 'Hello there, tea drinker.',
      model: 'mock-model',
      finish_reason: 'stop',
    });
    expect(response.usage.total_tokens).toBeGreaterThan(0);
    const sent = server.chatRequests[0]!;
    expect(sent.headers.authorization).toBe(`Bearer ${CANARY}`);
    expect(sent.body).toMatchObject({ model: 'mock-model', temperature: 0.2, max_tokens: 50, tool_choice: 'auto' });
    expect(sent.body.response_format.json_schema.schema).toEqual({ type: 'object' });
    expect(sent.body.stream).toBeUndefined();
  });

  it('streams content in order and ends with the whole response and usage', async () => {
    const { deltas, response } = await collect(client().stream(request));
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.join('')).toBe('Hello there, tea drinker.');
    expect(response).toMatchObject({ content: 'Hello there, tea drinker.', finish_reason: 'stop' });
    expect(response!.usage.total_tokens).toBeGreaterThan(0);
    expect(server.chatRequests[0]!.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it('assembles streamed tool-call deltas by index', async () => {
    server.setReplies([
      {
        tool_calls: [
          { name: 'add', arguments: { a: 1, b: 2 } },
          { name: 'lookup', arguments: { q: 'tea 🫖' } },
        ],
      },
    ]);
    const { toolDeltas, response } = await collect(client().stream(request));
    expect(toolDeltas.length).toBeGreaterThanOrEqual(4);
    expect(response!.finish_reason).toBe('tool_calls');
    expect(response!.tool_calls!.map((call) => [call.function.name, JSON.parse(call.function.arguments)])).toEqual([
      ['add', { a: 1, b: 2 }],
      ['lookup', { q: 'tea 🫖' }],
    ]);
  });

  it('survives writes cut into 1..7-byte pieces (UTF-8 and lines split anywhere)', async () => {
    for (const byteSplit of [1, 2, 5, 7]) {
      const split = await startMockOpenAI({
        byteSplit,
        replies: [{ content: 'Grüße 🫖 an alle', tool_calls: [{ name: 'x', arguments: { k: 'ü' } }] }],
      });
      try {
        const { response } = await collect(createOpenAiClient({ api_base: split.url }).stream(request));
        expect(response!.content).toBe('Grüße 🫖 an alle');
        expect(JSON.parse(response!.tool_calls![0]!.function.arguments)).toEqual({ k: 'ü' });
      } finally {
        await split.close();
      }
    }
  });

  it('retries 429/5xx and then succeeds, counting each retry through the hook', async () => {
    server.setFault({ type: 'status', status: 503, times: 2 });
    const retries: number[] = [];
    const response = await client().generate(request, undefined, {
      beforeRetry: (retry) => retries.push(retry.attempt),
    });
    expect(response.content).toBe('Hello there, tea drinker.');
    expect(retries).toEqual([2, 3]);
    expect(server.chatRequests).toHaveLength(3);
  });

  it('retries a stream that fails before its headers, delivering each token once', async () => {
    server.setFault({ type: 'status', status: 502, times: 1 });
    const retries: number[] = [];
    const { deltas, response } = await collect(
      client().stream(request, undefined, { beforeRetry: (retry) => retries.push(retry.attempt) }),
    );
    expect(retries).toEqual([2]);
    expect(deltas.join('')).toBe('Hello there, tea drinker.');
    expect(response!.content).toBe('Hello there, tea drinker.');
  });

  for (const status of [408, 409, 425, 429, 500, 502, 503, 504]) {
    it(`gives LLM_HTTP_${status} after max_retries + 1 attempts`, async () => {
      server.setFault({ type: 'status', status });
      const error = await failure(client({ max_retries: 1 }).generate(request));
      expect(error.code).toBe(`LLM_HTTP_${status}`);
      expect(server.chatRequests).toHaveLength(2);
    });
  }

  for (const status of [400, 401, 404, 422, 501, 505]) {
    it(`does not retry HTTP ${status}`, async () => {
      server.setFault({ type: 'status', status, body: JSON.stringify({ error: { message: `bad key ${CANARY}` } }) });
      const error = await failure(client().generate(request));
      expect(error.code).toBe(`LLM_HTTP_${status}`);
      expect(server.chatRequests).toHaveLength(1);
      expect(error.text).not.toContain(CANARY);
    });
  }

  it('honours Retry-After in seconds and as an HTTP date', async () => {
    server.setFault({ type: 'status', status: 429, retryAfter: '0.05', times: 1 });
    const delays: number[] = [];
    await client().generate(request, undefined, { beforeRetry: (retry) => delays.push(retry.delay_ms) });
    expect(delays).toEqual([50]);
    server.setFault({
      type: 'status',
      status: 503,
      retryAfter: new Date(Date.now() + 3_600_000).toUTCString(),
      times: 1,
    });
    const capped: number[] = [];
    await client().generate(request, undefined, { beforeRetry: (retry) => capped.push(retry.delay_ms) });
    expect(capped).toEqual([fastRetries.retryAfterCapMs]);
  });

  it('times out an attempt that takes too long (LLM_TIMEOUT after retries)', async () => {
    server.setFault({ type: 'delay', ms: 1_000 });
    const error = await failure(client({ timeout_ms: 100, max_retries: 1 }).generate(request));
    expect(error.code).toBe('LLM_TIMEOUT');
    expect(server.chatRequests).toHaveLength(2);
  });

  it('reports a refused connection as LLM_UNAVAILABLE', async () => {
    const closed = await startMockOpenAI();
    const url = closed.url;
    await closed.close();
    const error = await failure(
      createOpenAiClient({ api_base: url, max_retries: 1 }, { retryTiming: fastRetries }).generate(request),
    );
    expect(error.code).toBe('LLM_UNAVAILABLE');
  });

  const streamFaults = [
    { name: 'a stream cut mid-way', fault: { type: 'cut', afterChunks: 3 } },
    { name: 'a reset connection mid-stream', fault: { type: 'reset', afterChunks: 3 } },
    {
      name: 'a stream cut mid tool call',
      fault: { type: 'cut_tool_call' },
      replies: [{ tool_calls: [{ name: 'add', arguments: { a: 1, b: 2 } }] }] as MockReply[],
    },
    { name: 'a malformed chunk', fault: { type: 'malformed_chunk', at: 2 } },
    { name: 'empty choices', fault: { type: 'empty_choices' } },
    { name: 'a 50 MB body', fault: { type: 'huge_body' } },
  ] as const;
  for (const testCase of streamFaults) {
    it(`stream: ${testCase.name} is LLM_BAD_RESPONSE and no done part`, async () => {
      if ('replies' in testCase) server.setReplies(testCase.replies as MockReply[]);
      server.setFault(testCase.fault);
      const parts: LlmStreamPart[] = [];
      const error = await failure(
        (async () => {
          for await (const part of client().stream(request)) parts.push(part);
        })(),
      );
      expect(error.code).toBe('LLM_BAD_RESPONSE');
      expect(parts.some((part) => part.type === 'done')).toBe(false);
      expect(server.chatRequests).toHaveLength(1);
    });
  }

  it('stream: a chunk sent twice (a repeated token from a server that does not stamp chunks) is part of the answer', async () => {
    server.setReplies(['very very good']);
    server.setFault({ type: 'duplicate_chunk', at: 2 });
    const { deltas, response } = await collect(client().stream(request));
    expect(response?.content).toBe(deltas.join(''));
    expect(response?.content.length).toBeGreaterThan('very very good'.length);
  });

  const wholeFaults = [
    { name: 'empty choices', fault: { type: 'empty_choices' } },
    { name: 'a body that is not JSON', fault: { type: 'not_json' } },
    { name: 'a 50 MB body', fault: { type: 'huge_body' } },
  ] as const;
  for (const testCase of wholeFaults) {
    it(`generate: ${testCase.name} is LLM_BAD_RESPONSE`, async () => {
      server.setFault(testCase.fault);
      expect((await failure(client().generate(request))).code).toBe('LLM_BAD_RESPONSE');
      expect(server.chatRequests).toHaveLength(1);
    });
  }

  it('finish_reason length with empty content is a response, not an error', async () => {
    server.setFault({ type: 'length' });
    expect(await client().generate(request)).toMatchObject({ content: '', finish_reason: 'length' });
    const { response } = await collect(client().stream(request));
    expect(response).toMatchObject({ content: '', finish_reason: 'length' });
  });

  it('cancelling aborts the in-flight request; the server sees the connection close', async () => {
    server.setFault({ type: 'delay', ms: 5_000 });
    const controller = new AbortController();
    const pending = client({ timeout_ms: 10_000 }).generate(request, controller.signal);
    await waitFor(() => server.chatRequests.length === 1);
    controller.abort();
    expect((await failure(pending)).code).toBe('CANCELLED');
    await waitFor(() => server.chatRequests[0]!.aborted);
    expect(server.chatRequests).toHaveLength(1);
  });

  it('cancelling a stream mid-way closes the connection', async () => {
    const slow = await startMockOpenAI({
      chunkDelayMs: 50,
      chunkSize: 1,
      replies: ['a fairly long answer that streams slowly'],
    });
    try {
      const controller = new AbortController();
      const seen: string[] = [];
      const error = await failure(
        (async () => {
          for await (const part of createOpenAiClient({ api_base: slow.url }).stream(request, controller.signal)) {
            if (part.type === 'delta') seen.push(part.content);
            if (seen.length === 2) controller.abort();
          }
        })(),
      );
      expect(error.code).toBe('CANCELLED');
      await waitFor(() => slow.chatRequests[0]!.aborted);
    } finally {
      await slow.close();
    }
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  for (let tries = 0; tries < 200 && !condition(); tries++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(condition()).toBe(true);
}
