/**
 * The durable-run contract on Node (`tea-edge serve`, worker/node/local-runs.ts): background runs (202,
 * Location, polled to completion), cancel, 20 concurrent resumes with exactly one winner, an SSE
 * follower dropping 3 times and reconnecting with Last-Event-ID (a short run and a 200-event run), a
 * foreground stream whose client leaves without asking to cancel, and a run left by a dead process
 * before its first node checkpoint closed as failed by the next server. Real HTTP; the model is the
 * mock server, slowed down.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFsStores, safeName } from '../../adapters/fs/index.js';
import { serve, type RunningServer } from '../../worker/node/node.js';
import { startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.js';
import { followWithDrops, readSse, runClient, sseEvents } from './durable-harness.js';

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

const { post, waitForStatus } = runClient(() => server.url);

async function storedEvents(runId: string, after = 0): Promise<any[]> {
  const text = await (await fetch(`${server.url}/runs/${runId}/events?after=${after}`)).text();
  return text.trim() === ''
    ? []
    : text
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
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
    const withReason = await post(`/runs/${runId}/cancel`, { reason: 'bored' });
    expect(withReason.status).toBe(400);
    expect(withReason.json.error).toMatchObject({ code: 'INVALID_PARAMS', field: 'reason' });
    mock.setFault();
  }, 30_000);

  it('the run routes read a request as on every host (worker/run-routes.ts): cancel is POST only, an id no run can have is 404', async () => {
    const get = await fetch(`${server.url}/runs/any/cancel`);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    expect(((await get.json()) as any).error.code).toBe('METHOD_NOT_ALLOWED');
    const long = 'x'.repeat(201);
    for (const route of [`/runs/${long}`, `/runs/${long}/events`])
      expect((await fetch(`${server.url}${route}`)).status, route).toBe(404);
    for (const route of [`/runs/${long}/resume`, `/runs/${long}/cancel`])
      expect((await post(route, {})).status, route).toBe(404);
    expect(existsSync(path.join(directory, 'traces', 'runs', safeName(long)))).toBe(false);
  }, 30_000);

  it('20 concurrent resumes of one pause: exactly one wins, 19 are 409', async () => {
    const started = await post('/agents/counter/runs', { input: { count: 1 } });
    const runId = started.json.run_id as string;
    // Each names the pause it answers, so one that arrives after the winner paused again is refused too.
    const pause = { checkpoint_id: started.json.interrupt.checkpoint_id as string };
    const results = await Promise.all(Array.from({ length: 20 }, () => post(`/runs/${runId}/resume`, pause)));
    expect(results.filter((result) => result.status === 200)).toHaveLength(1);
    expect(results.filter((result) => result.status === 409)).toHaveLength(19);
    const events = await storedEvents(runId);
    expect(events.filter((event) => event.type === 'node_start' && event.node === 'review')).toHaveLength(1);
    const late = await post(`/runs/${runId}/resume`, pause);
    expect(late.status).toBe(409);
    expect(late.json.error.code).toBe('CONFLICT');
  }, 30_000);

  it('an SSE follower that drops 3 times and reconnects with Last-Event-ID sees every event once, in order', async () => {
    const started = await post('/agents/asker/runs', { input: { question: 'Follow?' } }, { prefer: 'respond-async' });
    const runId = started.json.run_id as string;
    const { seen, reconnects } = await followWithDrops(
      (headers) => fetch(`${server.url}/runs/${runId}/events`, { headers }),
      3,
    );
    expect(reconnects).toBe(3);
    const stored = await storedEvents(runId);
    expect(stored.at(-1).type).toBe('done');
    expect(seen).toEqual(stored.map((event) => event.seq));
  }, 30_000);

  it('a client leaving a foreground stream without asking does not stop the run', async () => {
    const response = await fetch(`${server.url}/agents/asker/runs`, {
      method: 'POST',
      headers: { ...json, accept: 'text/event-stream' },
      body: JSON.stringify({ input: { question: 'Leave?' } }),
    });
    const { text } = await readSse(response, 3);
    const runId = sseEvents(text)[0]!.data.run_id as string;
    expect((await waitForStatus(runId, (status) => status !== 'running')).status).toBe('completed');
  }, 30_000);

  it('100 concurrent background runs all finish completed', async () => {
    const started = await Promise.all(
      Array.from({ length: 100 }, (_, index) =>
        post('/agents/quick/runs', { input: { question: `q${index}` } }, { prefer: 'respond-async' }),
      ),
    );
    expect(started.every((response) => response.status === 202)).toBe(true);
    const records = await Promise.all(
      started.map((response) => waitForStatus(response.json.run_id, (status) => status !== 'running')),
    );
    expect(records.filter((record) => record.status === 'completed')).toHaveLength(100);
  }, 60_000);

  it('an SSE follower of a 200-event run that drops 3 times sees all of it once, in order', async () => {
    const pieces = Array.from({ length: 200 }, (_, index) => `${String.fromCharCode(97 + (index % 26))}${index % 10}`);
    const long = await startMockOpenAI({ replies: [pieces.join('')], chunkSize: 2, chunkDelayMs: 5 });
    const other = await serve({
      port: 0,
      agentsDir: path.join(import.meta.dirname, 'agents'),
      traceDir: path.join(directory, 'traces-200'),
      app: { llm: { overrides: { api_base: long.url, model: 'mock-model' } }, sseHeartbeatMs: 100 },
    });
    try {
      const response = await fetch(`${other.url}/agents/asker/runs`, {
        method: 'POST',
        headers: { ...json, prefer: 'respond-async' },
        body: JSON.stringify({ input: { question: 'Two hundred?' } }),
      });
      const runId = ((await response.json()) as { run_id: string }).run_id;
      const { seen, reconnects } = await followWithDrops(
        (headers) => fetch(`${other.url}/runs/${runId}/events`, { headers }),
        3,
        50,
      );
      expect(reconnects).toBe(3);
      const text = await (await fetch(`${other.url}/runs/${runId}/events`)).text();
      const stored = text
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      expect(stored.filter((event) => event.type === 'answer_chunk')).toHaveLength(200);
      expect(seen).toEqual(stored.map((event) => event.seq));
    } finally {
      await other.close();
      await long.close();
    }
  }, 30_000);

  it('a run left running by a dead process before its first node checkpoint is closed failed by the next server, saying why', async () => {
    const traceDir = path.join(directory, 'traces-orphan');
    const { traceStore } = createFsStores(traceDir);
    const now = new Date().toISOString();
    await traceStore.putRun({
      run_id: 'orphan-1',
      agent: 'asker',
      status: 'running',
      created_at: now,
      updated_at: now,
    });
    await traceStore.appendEvents('orphan-1', [
      { type: 'run_start', run_id: 'orphan-1', seq: 1, ts: now, data: { agent: 'asker', input: {} } },
    ]);
    await traceStore.flush('orphan-1');
    // The lease of a process that is gone (no such pid on this machine).
    const lease = path.join(traceDir, 'durable', safeName('orphan-1'), 'lease.1');
    await mkdir(path.dirname(lease), { recursive: true });
    await writeFile(
      lease,
      JSON.stringify({ run_id: 'orphan-1', host: hostname(), pid: 2 ** 22 + 7, instance: 'gone' }),
    );
    const next = await serve({ port: 0, agentsDir: path.join(import.meta.dirname, 'agents'), traceDir });
    try {
      let record: any;
      for (let attempt = 0; attempt < 200 && record?.status !== 'failed'; attempt++) {
        record = await (await fetch(`${next.url}/runs/orphan-1`)).json();
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      expect(record).toMatchObject({ status: 'failed', stop_reason: 'error', error: { code: 'INTERNAL' } });
      expect(record.error.message).toContain('before its first node checkpoint');
      const text = await (await fetch(`${next.url}/runs/orphan-1/events`)).text();
      expect(
        text
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line).type),
      ).toEqual(['run_start', 'done']);
      expect(existsSync(path.dirname(lease))).toBe(false);
    } finally {
      await next.close();
    }
  }, 30_000);
});
