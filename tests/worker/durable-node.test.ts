/**
 * The durable-run contract on Node (`tea-edge serve`, worker/local-runs.ts): background runs (202,
 * Location, polled to completion), cancel, 20 concurrent resumes with exactly one winner, an SSE
 * follower dropping 3 times and reconnecting with Last-Event-ID, and a foreground stream whose
 * client leaves without asking to cancel. Real HTTP; the model is the mock server, slowed down.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve, type RunningServer } from '../../worker/node.js';
import { startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.js';
import { followWithDrops, readSse, sseEvents } from './durable-harness.js';

let directory: string;
let server: RunningServer;
let mock: MockOpenAI;
const LONG_ANSWER = 'The answer is forty-two, give or take a towel or two, really.';
const json = { 'content-type': 'application/json' };

beforeAll(async () => {
  directory = await mkdtemp(path.join(tmpdir(), 'tea-edge-node-durable-'));
  mock = await startMockOpenAI({ replies: [LONG_ANSWER], chunkSize: 2, chunkDelayMs: 25 });
  server = await serve({
    port: 0,
    agentsDir: path.join(import.meta.dirname, 'agents'),
    traceDir: path.join(directory, 'traces'),
    app: { llm: { overrides: { api_base: mock.url, model: 'mock-model' } }, sseHeartbeatMs: 100 },
  });
});

afterAll(async () => {
  await server?.close();
  await mock?.close();
  await rm(directory, { recursive: true, force: true });
});

async function post(route: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${server.url}${route}`, { method: 'POST', headers: { ...json, ...headers }, body: JSON.stringify(body) });
  return { status: response.status, headers: response.headers, json: (await response.json()) as any };
}

async function waitForStatus(runId: string, wanted: (status: string) => boolean): Promise<any> {
  for (let attempt = 0; attempt < 400; attempt++) {
    const record = (await (await fetch(`${server.url}/runs/${runId}`)).json()) as any;
    if (wanted(record.status)) return record;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`run ${runId} never reached the wanted status`);
}

async function storedEvents(runId: string, after = 0): Promise<any[]> {
  const text = await (await fetch(`${server.url}/runs/${runId}/events?after=${after}`)).text();
  return text.trim() === '' ? [] : text.trim().split('\n').map((line) => JSON.parse(line));
}

describe('durable runs on Node (tea-edge serve)', () => {
  it('Prefer: respond-async answers 202 with a Location; the run finishes in the process', async () => {
    const started = await post('/agents/asker/runs', { input: { question: 'Long?' } }, { prefer: 'respond-async' });
    expect(started.status).toBe(202);
    const runId = started.json.run_id as string;
    expect(started.headers.get('location')).toBe(`/runs/${runId}`);
    const record = await waitForStatus(runId, (status) => status !== 'running');
    expect(record.status).toBe('completed');
    const events = await storedEvents(runId);
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    expect(events.at(-1)).toMatchObject({ type: 'done', data: { state: { answer: { content: LONG_ANSWER } } } });
  }, 30_000);

  it('POST /runs/:id/cancel stops a running run; then 409; unknown 404', async () => {
    mock.setFault({ type: 'delay', ms: 5000, times: 1 });
    const started = await post('/agents/asker/runs', { input: { question: 'Slow?' } }, { prefer: 'respond-async' });
    const runId = started.json.run_id as string;
    const cancelled = await post(`/runs/${runId}/cancel`, {});
    expect(cancelled.status).toBe(200);
    expect(cancelled.json).toMatchObject({ status: 'cancelled', error: { code: 'CANCELLED' } });
    expect((await post(`/runs/${runId}/cancel`, {})).status).toBe(409);
    expect((await post('/runs/never-was/cancel', {})).status).toBe(404);
    mock.setFault();
  }, 30_000);

  it('20 concurrent resumes of one pause: exactly one wins, 19 are 409', async () => {
    const started = await post('/agents/counter/runs', { input: { count: 1 } });
    const runId = started.json.run_id as string;
    const results = await Promise.all(Array.from({ length: 20 }, () => post(`/runs/${runId}/resume`, {})));
    expect(results.filter((result) => result.status === 200)).toHaveLength(1);
    expect(results.filter((result) => result.status === 409)).toHaveLength(19);
    const events = await storedEvents(runId);
    expect(events.filter((event) => event.type === 'node_start' && event.node === 'review')).toHaveLength(1);
  }, 30_000);

  it('an SSE follower that drops 3 times and reconnects with Last-Event-ID sees every event once, in order', async () => {
    const started = await post('/agents/asker/runs', { input: { question: 'Follow?' } }, { prefer: 'respond-async' });
    const runId = started.json.run_id as string;
    const { seen, reconnects } = await followWithDrops((headers) => fetch(`${server.url}/runs/${runId}/events`, { headers }), 3);
    expect(reconnects).toBe(3);
    const stored = await storedEvents(runId);
    expect(stored.at(-1).type).toBe('done');
    expect(seen).toEqual(stored.map((event) => event.seq));
  }, 30_000);

  it('a client leaving a foreground stream without asking does not stop the run', async () => {
    const response = await fetch(`${server.url}/agents/asker/runs`, { method: 'POST', headers: { ...json, accept: 'text/event-stream' }, body: JSON.stringify({ input: { question: 'Leave?' } }) });
    const { text } = await readSse(response, 3);
    const runId = sseEvents(text)[0]!.data.run_id as string;
    expect((await waitForStatus(runId, (status) => status !== 'running')).status).toBe('completed');
  }, 30_000);

  it('100 concurrent background runs all finish completed', async () => {
    const started = await Promise.all(Array.from({ length: 100 }, (_, index) => post('/agents/quick/runs', { input: { question: `q${index}` } }, { prefer: 'respond-async' })));
    expect(started.every((response) => response.status === 202)).toBe(true);
    const records = await Promise.all(started.map((response) => waitForStatus(response.json.run_id, (status) => status !== 'running')));
    expect(records.filter((record) => record.status === 'completed')).toHaveLength(100);
  }, 60_000);
});
