/**
 * Streaming through the worker bundle in Miniflare: SSE order and flushing, a model server that
 * fails, and a client that disconnects mid-stream (the model call is aborted, the run recorded as
 * cancelled). The model server is the mock on 127.0.0.1, reached by the worker's outbound fetch.
 */
import type { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.js';
import { bundleTestWorker, call, parseSse, startWorker } from './miniflare-harness.js';

let scripted: Miniflare;
let mocked: Miniflare;
let mock: MockOpenAI;

beforeAll(async () => {
  const script = await bundleTestWorker();
  mock = await startMockOpenAI({ replies: ['The answer is forty-two.'], chunkSize: 6 });
  scripted = await startWorker(script);
  mocked = await startWorker(script, {
    bindings: {
      LLM_BASE_URL: mock.url,
      LLM_MODEL: 'mock-model',
      LLM_API_KEY: 'sk-test-key-123',
      SSE_HEARTBEAT_MS: '200',
    },
  });
});

afterAll(async () => {
  await scripted?.dispose();
  await mocked?.dispose();
  await mock?.close();
});

async function postStream(miniflare: Miniflare, route: string, body: unknown) {
  return miniflare.dispatchFetch(`http://worker.test${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify(body),
  });
}

/** Polls until `check` passes or the attempts run out (counts attempts, never asserts time). */
async function eventually<T>(read: () => Promise<T>, check: (value: T) => boolean, attempts = 100): Promise<T> {
  let value = await read();
  for (let attempt = 0; attempt < attempts && !check(value); attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    value = await read();
  }
  return value;
}

describe('SSE (Miniflare)', () => {
  it('streams every event in order, named by type, flushed as it happens, done last', async () => {
    const response = await postStream(scripted, '/agents/greeter/runs', { input: { name: 'Ada' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    const reads: string[] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      reads.push(decoder.decode(value, { stream: true }));
    }
    // The scripted model waits before answering: the events before the call arrived in an
    // earlier read than the answer, so the stream was not buffered to the end.
    const firstWithAnswer = reads.findIndex((text) => text.includes('event: answer_chunk'));
    expect(reads.findIndex((text) => text.includes('event: run_start'))).toBeLessThan(firstWithAnswer);
    expect(reads.findIndex((text) => text.includes('event: done'))).toBeGreaterThan(
      reads.findIndex((text) => text.includes('event: llm_request')),
    );

    const events = parseSse(reads.join(''));
    expect(events.map((event) => event.data.seq)).toEqual(events.map((_, index) => index + 1));
    expect(events.every((event) => event.event === event.data.type && event.id === String(event.data.seq))).toBe(true);
    expect(events[0]!.event).toBe('run_start');
    expect(events.at(-1)).toMatchObject({ event: 'done', data: { data: { status: 'completed' } } });
    const types = events.map((event) => event.event);
    expect(types.filter((type) => type === 'answer_chunk').length).toBeGreaterThan(1);
    expect(types.indexOf('llm_request')).toBeLessThan(types.indexOf('answer_chunk'));
    expect(types.lastIndexOf('answer_chunk')).toBeLessThan(types.indexOf('llm_response'));
    expect(events.at(-1)!.data.data.state.greeting).toBeDefined();

    const stored = await call(scripted, 'GET', `/runs/${events[0]!.data.run_id}/events`);
    const storedEvents = stored.text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(storedEvents.map((event) => [event.seq, event.type])).toEqual(
      events.map((event) => [event.data.seq, event.event]),
    );
  });
});

describe('SSE on resume (Miniflare)', () => {
  it('streams a resumed run, its seq continuing after the paused part', async () => {
    const paused = await call(scripted, 'POST', '/agents/counter/runs', { input: {} });
    const before = (await call(scripted, 'GET', `/runs/${paused.json.run_id}/events`)).text.trim().split('\n').length;
    const response = await postStream(scripted, `/runs/${paused.json.run_id}/resume`, {});
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const events = parseSse(await response.text());
    expect(events[0]!.data.seq).toBe(before + 1);
    expect(events.map((event) => event.data.seq)).toEqual(events.map((_, index) => before + 1 + index));
    expect(events.at(-1)).toMatchObject({
      event: 'done',
      data: { data: { status: 'interrupted', stop_reason: 'interrupt_after' } },
    });
    const conflict = await postStream(scripted, `/runs/not-a-run/resume`, {});
    expect(conflict.status).toBe(404);
    expect(((await conflict.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND');
  });
});

describe('model server through the worker (Miniflare + mock on 127.0.0.1)', () => {
  it('runs against the endpoint from LLM_BASE_URL, never storing the API key', async () => {
    mock.setFault();
    const response = await call(mocked, 'POST', '/agents/asker/runs', { input: { question: 'What is the answer?' } });
    expect(response.status).toBe(200);
    expect(response.json).toMatchObject({
      status: 'completed',
      state: { answer: { content: expect.stringContaining('forty-two') } },
    });
    const last = mock.chatRequests.at(-1)!;
    expect(last.body.model).toBe('mock-model');
    expect(String(last.headers.authorization)).toBe('Bearer sk-test-key-123');
    const events = await call(mocked, 'GET', `/runs/${response.json.run_id}/events`);
    expect(events.text).not.toContain('sk-test-key-123');
  });

  it('a failing model server ends the run failed with an LLM error code (502 as JSON, done event over SSE), recorded as failed', async () => {
    mock.setFault({ type: 'status', status: 500, body: '{"error":{"message":"boom"}}' });
    const response = await call(mocked, 'POST', '/agents/asker/runs', { input: { question: 'Fail?' } });
    expect(response.status).toBe(502);
    expect(response.json.status).toBe('failed');
    expect(response.json.error.code).toMatch(/^LLM_/);
    const record = await call(mocked, 'GET', `/runs/${response.json.run_id}`);
    expect(record.json).toMatchObject({ status: 'failed', error: { code: response.json.error.code } });
    const streamed = parseSse(
      await (await postStream(mocked, '/agents/asker/runs', { input: { question: 'Fail?' } })).text(),
    );
    mock.setFault();
    expect(streamed.at(-1)).toMatchObject({
      event: 'done',
      data: { data: { status: 'failed', error: { code: response.json.error.code } } },
    });
  });

  it('a client disconnecting mid-stream aborts the model call and the run is recorded as cancelled', async () => {
    mock.setFault({ type: 'delay', ms: 20_000 });
    const before = mock.chatRequests.length;
    const response = await postStream(mocked, '/agents/asker/runs', { input: { question: 'Slow?' } });
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes('event: llm_request')) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    const runId = parseSse(text.slice(0, text.lastIndexOf('\n\n') + 2))[0]!.data.run_id as string;
    await eventually(
      async () => mock.chatRequests.length,
      (count) => count > before,
    );
    await reader.cancel();
    const record = await eventually(
      () => call(mocked, 'GET', `/runs/${runId}`),
      (response) => response.json?.status === 'cancelled',
    );
    expect(record.json).toMatchObject({ status: 'cancelled', stop_reason: 'cancelled' });
    const request = await eventually(
      async () => mock.chatRequests[before]!,
      (recorded) => recorded.aborted,
    );
    expect(request.aborted).toBe(true);
    mock.setFault();
  });
});
