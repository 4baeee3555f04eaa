/**
 * The worker bundle in Miniflare (workerd) against what a web page or a hostile agent can do:
 * simple cross-site POSTs (text/plain, forms), foreign origins, unknown routes and methods; and
 * the model key (LLM_API_KEY) copied into state, echoed by the model and streamed in pieces, or
 * asked for by an agent naming its own endpoint.
 */
import type { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.js';
import { bundleTestWorker, call, parseSse, startWorker } from './miniflare-harness.js';

const KEY = 'sk-worker-key-8e1f3b6a';

let plain: Miniflare;
let keyed: Miniflare;
let keyOnly: Miniflare;
let host: MockOpenAI;
let attacker: MockOpenAI;
let script: string;

beforeAll(async () => {
  script = await bundleTestWorker();
  host = await startMockOpenAI({ replies: [`Here it is: ${KEY} (do not share)`], chunkSize: 2 });
  attacker = await startMockOpenAI({ replies: ['got it'] });
  plain = await startWorker(script, { bindings: { CORS_ORIGINS: 'https://app.example' } });
  keyed = await startWorker(script, { bindings: { LLM_BASE_URL: host.url, LLM_MODEL: 'm', LLM_API_KEY: KEY } });
  keyOnly = await startWorker(script, { bindings: { LLM_API_KEY: KEY } });
});

afterAll(async () => {
  for (const miniflare of [plain, keyed, keyOnly]) await miniflare?.dispose();
  await host?.close();
  await attacker?.close();
});

async function fetchRaw(
  miniflare: Miniflare,
  route: string,
  init: { method?: string; headers?: Record<string, string>; body?: string },
) {
  const response = await miniflare.dispatchFetch(`http://worker.test${route}`, init);
  const text = await response.text();
  return { status: response.status, text, headers: response.headers };
}

describe('worker: requests a page could send (Miniflare)', () => {
  it('refuses text/plain, form and type-less POST bodies with 415', async () => {
    for (const headers of [
      { 'content-type': 'text/plain;charset=UTF-8' },
      { 'content-type': 'application/x-www-form-urlencoded' },
      { 'content-type': 'multipart/form-data; boundary=b' },
      {},
    ] as Array<Record<string, string>>) {
      for (const route of ['/agents/counter/runs', '/runs/some-run/resume']) {
        const response = await fetchRaw(plain, route, { method: 'POST', headers, body: '{"input":{}}' });
        expect({ route, headers, status: response.status, code: JSON.parse(response.text).error.code }).toEqual({
          route,
          headers,
          status: 415,
          code: 'UNSUPPORTED_MEDIA_TYPE',
        });
      }
    }
    expect((await call(plain, 'GET', '/runs')).json.runs).toHaveLength(0);
  });

  it('refuses foreign origins and cross-site requests without one; accepts the allowed origin', async () => {
    for (const origin of ['https://evil.example', 'null', 'https://app.example.evil.example', 'http://app.example']) {
      const response = await call(plain, 'POST', '/agents/counter/runs', {}, { origin });
      expect({ origin, status: response.status, code: response.json?.error?.code }).toEqual({
        origin,
        status: 403,
        code: 'FORBIDDEN',
      });
    }
    expect(
      (await call(plain, 'GET', '/runs/x/review?learn=true', undefined, { 'sec-fetch-site': 'cross-site' })).status,
    ).toBe(403);
    expect((await call(plain, 'POST', '/agents/counter/runs', {}, { origin: 'https://app.example' })).json.status).toBe(
      'interrupted',
    );
    expect((await call(plain, 'POST', '/agents/counter/runs', {}, { origin: 'http://worker.test' })).json.status).toBe(
      'interrupted',
    );
  });

  it('answers unknown routes 404 and wrong methods 405, both as {error: {code, message}}', async () => {
    for (const [method, route, status, code] of [
      ['GET', '/admin', 404, 'NOT_FOUND'],
      ['DELETE', '/runs/x', 405, 'METHOD_NOT_ALLOWED'],
      ['PUT', '/agents/counter/runs', 405, 'METHOD_NOT_ALLOWED'],
      ['GET', '/runs/x/resume', 405, 'METHOD_NOT_ALLOWED'],
      ['PATCH', '/agents', 405, 'METHOD_NOT_ALLOWED'],
    ] as const) {
      const response = await fetchRaw(plain, route, {
        method,
        headers: { 'content-type': 'application/json' },
        ...(method === 'GET' || method === 'DELETE' ? {} : { body: '{}' }),
      });
      const body = JSON.parse(response.text);
      expect({
        route,
        method,
        status: response.status,
        code: body.error.code,
        message: typeof body.error.message,
      }).toEqual({ route, method, status, code, message: 'string' });
    }
  });
});

describe('worker: the model key never leaves (Miniflare)', () => {
  it('copied into state and echoed by the model: not in the JSON body, the SSE stream, the events or the record', async () => {
    const json = await call(keyed, 'POST', '/agents/asker/runs', { input: { question: KEY } });
    expect(json.json.status).toBe('completed');
    expect(json.text).not.toContain(KEY);
    expect(json.json.state.question).toBe('[REDACTED]');
    expect(host.chatRequests.at(-1)!.headers.authorization).toBe(`Bearer ${KEY}`);

    const stream = await keyed.dispatchFetch('http://worker.test/agents/asker/runs', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ input: { question: `again ${KEY}` } }),
    });
    const text = await stream.text();
    expect(text).not.toContain(KEY);
    const events = parseSse(text);
    const chunks = events
      .filter((event) => event.event === 'answer_chunk')
      .map((event) => event.data.data.content as string);
    expect(chunks.length).toBeGreaterThan(5);
    expect(chunks.join('')).toBe('Here it is: [REDACTED] (do not share)');
    const runId = events[0]!.data.run_id as string;
    for (const route of [`/runs/${runId}`, `/runs/${runId}/events`, `/runs/${json.json.run_id}/events`, '/runs']) {
      expect({ route, leaked: (await call(keyed, 'GET', route)).text.includes(KEY) }).toEqual({ route, leaked: false });
    }
  });

  it('an agent naming its own endpoint gets no key from a key-only host; with LLM_BASE_URL the call goes to the host', async () => {
    const before = attacker.chatRequests.length;
    const response = await call(keyOnly, 'POST', '/agents/fetcher/runs', { input: { where: attacker.url } });
    expect(response.json.status).toBe('completed');
    const received = attacker.chatRequests.slice(before);
    expect(received).toHaveLength(1);
    expect(JSON.stringify(received[0]!.headers)).not.toContain(KEY);

    const hostBefore = host.chatRequests.length;
    expect((await call(keyed, 'POST', '/agents/fetcher/runs', { input: { where: attacker.url } })).json.status).toBe(
      'completed',
    );
    expect(attacker.chatRequests.length).toBe(before + 1);
    expect(host.chatRequests.slice(hostBefore).map((request) => request.headers.authorization)).toEqual([
      `Bearer ${KEY}`,
    ]);
  });
});

describe('a deployment variable the worker cannot read', () => {
  it('answers 500 HOST_CONFIG naming it on every route, instead of running with a default', async () => {
    const misconfigured = await startWorker(script, { bindings: { MAX_BODY_BYTES: '1 MiB' } });
    try {
      for (const route of ['/health', '/agents']) {
        const answer = await call(misconfigured, 'GET', route);
        expect({ route, status: answer.status, code: answer.json.error.code, field: answer.json.error.field }).toEqual({
          route,
          status: 500,
          code: 'HOST_CONFIG',
          field: 'MAX_BODY_BYTES',
        });
        expect(answer.json.error.message).toContain('MAX_BODY_BYTES must be an integer ≥ 1, got "1 MiB"');
      }
    } finally {
      await misconfigured.dispose();
    }
  });
});
