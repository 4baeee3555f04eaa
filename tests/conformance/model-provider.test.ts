/**
 * Every ModelProvider implementation in Node runs the conformance suite: the OpenAI-compatible
 * client over real HTTP against the mock server, the scripted model, and replay of a recording
 * made by that client. Replay's own promises (replayed identical, a differing request is a typed
 * error) follow. The client then replays the real-server transcripts (model-provider-transcripts.ts)
 * twice: over HTTP from the transcript server, and through a fetch whose body hands the client
 * exactly the transcript's writes, one read each (chunk boundaries that TCP could merge).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpenAiClient } from '../../src/llm/openai-client.js';
import { createReplayProvider } from '../../src/llm/replay.js';
import { createScriptedModel } from '../../src/llm/scripted-model.js';
import { startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.js';
import { loadTranscripts, startTranscriptServer, type TranscriptServer } from '../support/transcript-server.js';
import { describeTranscripts, transcriptWrites, type NamedTranscript } from './model-provider-transcripts.js';
import { armMock, deadEndpoint, recordScenario, scriptFor } from './model-provider-backends.js';
import {
  collect,
  describeModelProviderConformance,
  rejection,
  type Scenario,
} from '../../src/testing/model-provider-conformance.js';

const fastRetries = { baseDelayMs: 5, maxDelayMs: 20, retryAfterCapMs: 50 };
let server: MockOpenAI;
let deadUrl: string;
let transcriptServer: TranscriptServer;

beforeAll(async () => {
  server = await startMockOpenAI({ chunkSize: 3 });
  deadUrl = await deadEndpoint();
  transcriptServer = await startTranscriptServer();
});
afterAll(async () => {
  await server.close();
  await transcriptServer.close();
});

function openAiClientFor(scenario: Scenario) {
  return createOpenAiClient(armMock(server, deadUrl, scenario), { retryTiming: fastRetries });
}

describeModelProviderConformance(
  'OpenAI-compatible client (Node, mock server over HTTP)',
  async (scenario) => {
    const provider = openAiClientFor(scenario);
    return { provider, attempts: () => server.chatRequests.length };
  },
  { features: ['retries', 'abortInFlight', 'throwingHooks', 'abortBetweenParts'] },
);

describeModelProviderConformance(
  'scripted model',
  async (scenario) => {
    const model = createScriptedModel(scriptFor(scenario));
    return { provider: model, attempts: () => model.calls.length };
  },
  { features: ['abortInFlight', 'abortBetweenParts'] },
);

describeModelProviderConformance(
  'replay of a recorded run',
  async (scenario) => {
    // Replay answers what the recorded call returned: record with no retries, as the seam saw it.
    const { events } = await recordScenario(scenario, openAiClientFor({ ...scenario, maxRetries: 0 }));
    const provider = createReplayProvider(events);
    const recorded = provider.remaining;
    return { provider, attempts: () => recorded - provider.remaining };
  },
  { features: ['abortBetweenParts'] },
);

describe('replay', () => {
  const scenario: Scenario = {
    maxRetries: 0,
    calls: [
      {
        request: {
          model: 'mock-model',
          messages: [
            { role: 'system', content: 'be brief' },
            { role: 'user', content: 'first' },
          ],
        },
        outcome: { content: 'one answer' },
      },
      {
        request: { model: 'mock-model', messages: [{ role: 'user', content: 'second' }] },
        outcome: { content: '', tool_calls: [{ name: 'add', arguments: { a: 1, b: 2 } }] },
      },
      {
        request: { model: 'mock-model', messages: [{ role: 'user', content: 'third' }] },
        outcome: { content: 'last answer', usage: { prompt_tokens: 3, completion_tokens: 2 } },
      },
    ],
  };

  it('answers each call exactly as the recorded run was answered', async () => {
    const { events, results } = await recordScenario(scenario, openAiClientFor(scenario));
    const provider = createReplayProvider(events);
    const replayed = [];
    for (const [index, { request }] of scenario.calls.entries()) {
      replayed.push(index === 1 ? (await collect(provider.stream(request))).done : await provider.generate(request));
    }
    expect(replayed).toEqual(results);
    expect(provider.remaining).toBe(0);
    expect(provider.mismatches).toEqual([]);
  });

  it('a request that differs from the recording is a typed LLM_BAD_RESPONSE naming the call and field', async () => {
    const { events } = await recordScenario(scenario, openAiClientFor(scenario));
    const provider = createReplayProvider(events);
    await provider.generate(scenario.calls[0]!.request);
    const error = (await rejection(
      provider.generate({ messages: [{ role: 'user', content: 'not what was recorded' }] }),
    )) as { code: string; details: Record<string, unknown> };
    expect(error.code).toBe('LLM_BAD_RESPONSE');
    expect(error.details.mismatch).toEqual({
      call: 2,
      field: 'messages[0].content',
      recorded: 'second',
      actual: 'not what was recorded',
    });
  });

  it('a call beyond the recording is a typed LLM_BAD_RESPONSE', async () => {
    const { events } = await recordScenario(
      { maxRetries: 0, calls: [scenario.calls[0]!] },
      openAiClientFor({ maxRetries: 0, calls: [scenario.calls[0]!] }),
    );
    const provider = createReplayProvider(events);
    await provider.generate(scenario.calls[0]!.request);
    expect(await rejection(provider.generate(scenario.calls[0]!.request))).toMatchObject({
      code: 'LLM_BAD_RESPONSE',
      details: { call: 2 },
    });
  });
});

const transcripts = loadTranscripts();

describe('the transcript folder', () => {
  it('holds at least 30 transcripts from at least 5 servers, each citing its sources', () => {
    expect(transcripts.length).toBeGreaterThanOrEqual(30);
    expect(new Set(transcripts.map((named) => named.transcript.server)).size).toBeGreaterThanOrEqual(5);
    expect(transcripts.filter((named) => named.transcript.request.stream).length).toBeGreaterThan(0);
    expect(transcripts.filter((named) => !named.transcript.request.stream).length).toBeGreaterThan(0);
  });
});

describeTranscripts('OpenAI-compatible client (Node, HTTP)', transcripts, async (named, cut) => {
  const apiBase = transcriptServer.apiBase(named.name, cut);
  const provider = createOpenAiClient(
    { api_base: apiBase, max_retries: named.transcript.request.max_retries ?? 2, timeout_ms: 10_000 },
    { retryTiming: fastRetries },
  );
  return { provider, attempts: () => transcriptServer.attempts(apiBase) };
});

describeTranscripts('OpenAI-compatible client (Node, exact reads)', transcripts, async (named, cut) => {
  let attempts = 0;
  const fetchTranscript = async (): Promise<Response> => exactResponse(named, attempts++, cut);
  const provider = createOpenAiClient(
    {
      api_base: 'http://transcript.invalid/v1',
      max_retries: named.transcript.request.max_retries ?? 2,
      timeout_ms: 10_000,
    },
    { retryTiming: fastRetries, fetch: fetchTranscript as typeof fetch },
  );
  return { provider, attempts: () => attempts };
});

/** The transcript's n-th answer as a Response whose body yields each write as one read. */
function exactResponse(named: NamedTranscript, attempt: number, cut: number | undefined): Response {
  const recorded = named.transcript.responses[Math.min(attempt, named.transcript.responses.length - 1)]!;
  if (recorded.drop === 'before_headers') throw new TypeError('fetch failed', { cause: { code: 'ECONNRESET' } });
  const headers = new Headers(recorded.headers ?? {});
  if (recorded.body !== undefined)
    return new Response(typeof recorded.body === 'string' ? recorded.body : JSON.stringify(recorded.body), {
      status: recorded.status ?? 200,
      headers,
    });
  const pieces = transcriptWrites(recorded, cut);
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const piece = pieces.shift();
      if (piece !== undefined) controller.enqueue(piece);
      else if (recorded.drop === 'after_writes') controller.error(new TypeError('terminated'));
      else controller.close();
    },
  });
  return new Response(body, { status: recorded.status ?? 200, headers });
}
