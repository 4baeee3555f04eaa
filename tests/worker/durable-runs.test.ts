/**
 * Runs on the run coordinator (one Durable Object per run, SQLite storage) in Miniflare with the
 * bundled worker: background runs (202, Location, polled to completion), cancel, concurrent resumes
 * (exactly one wins), SSE reconnects with Last-Event-ID (every event once, in order), NDJSON
 * `?after=`, and the events kept in the object's storage across a restart. The model is the mock
 * server on 127.0.0.1, slowed down (streamed chunks with a delay) so runs last long enough.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.js';
import { bundleTestWorker, call, packageRoot } from './miniflare-harness.js';
import { followWithDrops, readSse, secondWorker, sseEvents, startDurableWorker } from './durable-harness.js';
import { wranglerDryRun } from './wrangler-dry-run.js';

let script: string;
let mock: MockOpenAI;
let persist: string;
const running: Miniflare[] = [];
/** 60 characters in chunks of 2: 30 answer_chunk events, 25 ms apart. */
const LONG_ANSWER = 'The answer is forty-two, give or take a towel or two, really.';

/** An instance over the shared storage; `mocked: false` leaves agents their own (scripted) models. */
async function instance(extra: Record<string, string> = {}, mocked = true): Promise<Miniflare> {
  const model: Record<string, string> = mocked ? { LLM_BASE_URL: mock.url, LLM_MODEL: 'mock-model' } : {};
  const miniflare = await startDurableWorker(script, {
    persist,
    bindings: { ...model, SSE_HEARTBEAT_MS: '100', ...extra },
  });
  running.push(miniflare);
  return miniflare;
}

async function stop(miniflare: Miniflare): Promise<void> {
  running.splice(running.indexOf(miniflare), 1);
  await miniflare.dispose();
}

async function waitForStatus(miniflare: Miniflare, runId: string, wanted: (status: string) => boolean): Promise<any> {
  for (let attempt = 0; attempt < 400; attempt++) {
    const record = await call(miniflare, 'GET', `/runs/${runId}`);
    if (record.status === 200 && wanted(record.json.status)) return record.json;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`run ${runId} never reached the wanted status`);
}

function ndjson(text: string): any[] {
  return text.trim() === ''
    ? []
    : text
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
}

beforeAll(async () => {
  script = await bundleTestWorker();
  mock = await startMockOpenAI({ replies: [LONG_ANSWER], chunkSize: 2, chunkDelayMs: 25 });
  persist = await mkdtemp(path.join(tmpdir(), 'tea-edge-do-'));
}, 120_000);

afterAll(async () => {
  for (const miniflare of running.splice(0)) await miniflare.dispose();
  await mock?.close();
  await rm(persist, { recursive: true, force: true });
});

describe('background runs on the run coordinator', () => {
  it('answers 202 with a Location at once, and the run finishes without the client', async () => {
    const miniflare = await instance();
    const started = await call(
      miniflare,
      'POST',
      '/agents/asker/runs',
      { input: { question: 'Long?' } },
      { prefer: 'respond-async' },
    );
    expect(started.status).toBe(202);
    expect(started.json).toMatchObject({ status: 'running' });
    const runId = started.json.run_id as string;
    expect(started.headers.get('location')).toBe(`/runs/${runId}`);
    // Answered before the model finished streaming: the record still says running.
    expect((await call(miniflare, 'GET', `/runs/${runId}`)).json.status).toBe('running');
    const record = await waitForStatus(miniflare, runId, (status) => status !== 'running');
    expect(record).toMatchObject({ status: 'completed', agent: 'asker' });
    const events = ndjson((await call(miniflare, 'GET', `/runs/${runId}/events`)).text);
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    expect(events.at(-1)).toMatchObject({
      type: 'done',
      data: { status: 'completed', state: { answer: { content: LONG_ANSWER } } },
    });
    expect(events.filter((event) => event.type === 'answer_chunk').length).toBeGreaterThanOrEqual(20);
    // The listing (KV index) has it too.
    const listed = await call(miniflare, 'GET', '/runs?agent=asker');
    expect(listed.json.runs.map((run: { run_id: string }) => run.run_id)).toContain(runId);
    await stop(miniflare);
  }, 60_000);

  it('POST /runs/:id/cancel stops a background run; a second cancel is a 409', async () => {
    const miniflare = await instance();
    mock.setFault({ type: 'delay', ms: 5000, times: 1 });
    const started = await call(
      miniflare,
      'POST',
      '/agents/asker/runs',
      { input: { question: 'Slow?' } },
      { prefer: 'respond-async' },
    );
    const runId = started.json.run_id as string;
    const cancelled = await call(miniflare, 'POST', `/runs/${runId}/cancel`, {});
    expect(cancelled.status).toBe(200);
    expect(cancelled.json).toMatchObject({
      run_id: runId,
      status: 'cancelled',
      stop_reason: 'cancelled',
      error: { code: 'CANCELLED' },
    });
    expect((await call(miniflare, 'GET', `/runs/${runId}`)).json.status).toBe('cancelled');
    const again = await call(miniflare, 'POST', `/runs/${runId}/cancel`, {});
    expect(again.status).toBe(409);
    expect(again.json.error.code).toBe('CONFLICT');
    expect((await call(miniflare, 'POST', '/runs/never-was/cancel', {})).status).toBe(404);
    mock.setFault();
    await stop(miniflare);
  }, 60_000);
});

describe('resumes on the run coordinator', () => {
  it('20 concurrent resumes of one pause, through two workers: exactly one wins, the rest are 409', async () => {
    const left = await instance();
    const right = await secondWorker(left);
    const started = await call(left, 'POST', '/agents/counter/runs', { input: { count: 1 } });
    expect(started.json).toMatchObject({ status: 'interrupted', stop_reason: 'interrupt_before' });
    const runId = started.json.run_id as string;
    // Each names the pause it answers, so one that arrives after the winner paused again is refused too.
    const pause = { checkpoint_id: started.json.interrupt.checkpoint_id as string };
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        call(index % 2 === 0 ? left : right, 'POST', `/runs/${runId}/resume`, pause),
      ),
    );
    const statuses = results.map((result) => result.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 409)).toHaveLength(19);
    const winner = results.find((result) => result.status === 200)!.json;
    expect(winner).toMatchObject({ status: 'interrupted', stop_reason: 'interrupt_after' });
    const events = ndjson((await call(right, 'GET', `/runs/${runId}/events`)).text);
    expect(events.filter((event) => event.type === 'node_start' && event.node === 'review')).toHaveLength(1);
    // A late answer to the first pause, sent after the run paused again: still refused.
    const late = await call(left, 'POST', `/runs/${runId}/resume`, pause);
    expect(late.status).toBe(409);
    expect(late.json.error.message).toContain(winner.interrupt.checkpoint_id);
    const finished = await call(right, 'POST', `/runs/${runId}/resume`, {
      checkpoint_id: winner.interrupt.checkpoint_id,
    });
    expect(finished.json).toMatchObject({ status: 'completed', state: { total: 24 } });
    expect((await call(left, 'POST', `/runs/${runId}/resume`, {})).status).toBe(409);
    await stop(left);
  }, 60_000);
});

describe('host secrets on the run coordinator (AGENT_SECRETS)', () => {
  it("the run gets the named secret; the answer and the object's events carry it redacted", async () => {
    const token = 'tok-worker-9d3a1b-secret';
    const miniflare = await instance({ AGENT_SECRETS: 'SEARCH_TOKEN', SEARCH_TOKEN: token, OTHER: 'not-named' });
    const started = await call(miniflare, 'POST', '/agents/secret-user/runs', {});
    expect(started.json).toMatchObject({
      status: 'completed',
      state: { seen: { header: 'Bearer [REDACTED]', other: true } },
    });
    const events = await call(miniflare, 'GET', `/runs/${started.json.run_id}/events`);
    expect(events.text).toContain('[REDACTED]');
    expect(started.text + events.text).not.toContain(token);
    await stop(miniflare);
  }, 60_000);
});

describe('time travel on the run coordinator', () => {
  it('POST /runs/:id/fork makes a new run in its own object, paused after the node with the edited state; resuming it runs from there', async () => {
    const miniflare = await instance();
    const parent = await call(miniflare, 'POST', '/agents/counter/runs', { input: { count: 1 } });
    expect(parent.json).toMatchObject({ status: 'interrupted', stop_reason: 'interrupt_before' });
    const forked = await call(miniflare, 'POST', `/runs/${parent.json.run_id}/fork`, {
      node: 'review',
      state: { count: 20, steps: ['start', 'edited'] },
    });
    expect(forked.status).toBe(201);
    const childId = forked.json.run_id as string;
    expect(forked.json).toMatchObject({ parent_run_id: parent.json.run_id, node: 'review' });
    expect((await call(miniflare, 'GET', `/runs/${childId}`)).json).toMatchObject({
      status: 'interrupted',
      parent_run_id: parent.json.run_id,
      forked_after: 'review',
    });
    const resumed = await call(miniflare, 'POST', `/runs/${childId}/resume`, {});
    expect(resumed.json).toMatchObject({
      run_id: childId,
      status: 'interrupted',
      stop_reason: 'interrupt_after',
      state: { total: 40, steps: ['start', 'edited', 'finish'] },
    });
    await call(miniflare, 'POST', `/runs/${childId}/resume`, {});
    expect((await call(miniflare, 'GET', `/runs/${childId}`)).json).toMatchObject({
      status: 'completed',
      parent_run_id: parent.json.run_id,
      forked_after: 'review',
    });
    // The parent is untouched, and still resumes on its own.
    expect(
      (
        await call(miniflare, 'POST', `/runs/${parent.json.run_id}/resume`, {
          checkpoint_id: parent.json.interrupt.checkpoint_id,
        })
      ).json,
    ).toMatchObject({ status: 'interrupted', state: { count: 12 } });
    expect(
      (await call(miniflare, 'POST', `/runs/${parent.json.run_id}/fork`, { node: 'nope', state: {} })).json.error.code,
    ).toBe('INVALID_PARAMS');
    expect((await call(miniflare, 'POST', '/runs/never-was/fork', { node: 'review', state: {} })).status).toBe(404);
    await stop(miniflare);
  }, 60_000);
});

describe('what reaches the object', () => {
  it('a resume answered as SSE streams its segment only, seq continuing, done last', async () => {
    const miniflare = await instance();
    const started = await call(miniflare, 'POST', '/agents/counter/runs', { input: { count: 1 } });
    const pausedAt = ndjson((await call(miniflare, 'GET', `/runs/${started.json.run_id}/events`)).text).length;
    const response = await miniflare.dispatchFetch(`http://worker.test/runs/${started.json.run_id}/resume`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: '{}',
    });
    const events = sseEvents((await readSse(response)).text);
    expect(events[0]!.id).toBe(String(pausedAt + 1));
    expect(events.map((event) => Number(event.id))).toEqual(events.map((_, index) => pausedAt + 1 + index));
    expect(events.at(-1)).toMatchObject({
      event: 'done',
      data: { data: { status: 'interrupted', stop_reason: 'interrupt_after' } },
    });
    await stop(miniflare);
  }, 60_000);

  it("the caller's role reaches the run in the object: tier-3 tools gated by role, approval resumed there", async () => {
    const miniflare = await instance(
      { API_TOKENS: 'op-token:operator,view-token:viewer', CORS_ORIGINS: 'https://app.example' },
      false,
    );
    const operator = { authorization: 'Bearer op-token' };
    expect((await call(miniflare, 'POST', '/agents/approver/runs', { input: {} })).status).toBe(401);
    const paused = await call(miniflare, 'POST', '/agents/approver/runs', { input: {} }, operator);
    expect(paused.json).toMatchObject({
      status: 'interrupted',
      stop_reason: 'confirmation',
      interrupt: { kind: 'tool_confirmation', tool: 'math.calculate' },
    });
    const approved = await call(miniflare, 'POST', `/runs/${paused.json.run_id}/resume`, { approval: true }, operator);
    expect(approved.json).toMatchObject({
      status: 'completed',
      state: { observations: ['{"result":42}', 'Goal achieved.'] },
    });
    // An allowed page's request gets its CORS headers on the object's answer too.
    const fromPage = await call(
      miniflare,
      'POST',
      '/agents/approver/runs',
      { input: {} },
      { ...operator, origin: 'https://app.example' },
    );
    expect(fromPage.status).toBe(200);
    expect(fromPage.headers.get('access-control-allow-origin')).toBe('https://app.example');
    const viewer = await call(
      miniflare,
      'POST',
      '/agents/approver/runs',
      { input: {} },
      { authorization: 'Bearer view-token' },
    );
    expect(viewer.json.state.observations[0]).toContain('Access denied');
    await stop(miniflare);
  }, 60_000);
});

describe('resumable event streams', () => {
  it('an SSE follower that drops 3 times and reconnects with Last-Event-ID sees every event once, in order', async () => {
    const miniflare = await instance();
    const started = await call(
      miniflare,
      'POST',
      '/agents/asker/runs',
      { input: { question: 'Follow me?' } },
      { prefer: 'respond-async' },
    );
    const runId = started.json.run_id as string;
    const { seen, reconnects } = await followWithDrops(
      (headers) => miniflare.dispatchFetch(`http://worker.test/runs/${runId}/events`, { headers }),
      3,
    );
    expect(reconnects).toBe(3);
    const stored = ndjson((await call(miniflare, 'GET', `/runs/${runId}/events`)).text);
    expect(stored.at(-1).type).toBe('done');
    expect(seen).toEqual(stored.map((event) => event.seq));
    const tail = ndjson((await call(miniflare, 'GET', `/runs/${runId}/events?after=${stored.length - 3}`)).text);
    expect(tail.map((event) => event.seq)).toEqual([stored.length - 2, stored.length - 1, stored.length]);
    await stop(miniflare);
  }, 60_000);

  it('a client leaving a foreground stream does not stop the run; with ?cancel_on_disconnect=1 it does', async () => {
    const miniflare = await instance();
    const post = (query: string) =>
      miniflare.dispatchFetch(`http://worker.test/agents/asker/runs${query}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify({ input: { question: 'Leave?' } }),
      });
    // The model keeps the dropped run waiting, so the disconnect reaches the object before it ends.
    mock.setFault({ type: 'delay', ms: 8000, times: 1 });
    const dropped = await readSse(await post('?cancel_on_disconnect=1'), 3);
    const droppedId = sseEvents(dropped.text)[0]!.data.run_id as string;
    await new Promise((resolve) => setTimeout(resolve, 200));
    mock.setFault();
    const kept = await readSse(await post(''), 3);
    const keptId = sseEvents(kept.text)[0]!.data.run_id as string;
    expect((await waitForStatus(miniflare, keptId, (status) => status !== 'running')).status).toBe('completed');
    expect((await waitForStatus(miniflare, droppedId, (status) => status !== 'running')).status).toBe('cancelled');
    await stop(miniflare);
  }, 60_000);

  it('keeps the events in the object storage across a restart of the worker', async () => {
    const first = await instance();
    const started = await call(first, 'POST', '/agents/asker/runs', { input: { question: 'Persist?' } });
    expect(started.json.status).toBe('completed');
    const before = (await call(first, 'GET', `/runs/${started.json.run_id}/events`)).text;
    await stop(first);
    const second = await instance();
    const after = await call(second, 'GET', `/runs/${started.json.run_id}/events`);
    expect(after.text).toBe(before);
    expect(ndjson(after.text).at(-1).type).toBe('done');
    expect((await call(second, 'GET', `/runs/${started.json.run_id}`)).json.status).toBe('completed');
    await stop(second);
  }, 60_000);
});

describe('many background runs', () => {
  it('100 concurrent background runs (one object each) all finish completed', async () => {
    const miniflare = await instance({}, false);
    const second = await secondWorker(miniflare);
    const started = await Promise.all(
      Array.from({ length: 100 }, (_, index) =>
        call(
          index % 2 === 0 ? miniflare : second,
          'POST',
          '/agents/quick/runs',
          { input: { question: `q${index}` } },
          { prefer: 'respond-async' },
        ),
      ),
    );
    expect(started.every((response) => response.status === 202)).toBe(true);
    const records = await Promise.all(
      started.map((response) => waitForStatus(miniflare, response.json.run_id, (status) => status !== 'running')),
    );
    expect(records.filter((record) => record.status === 'completed')).toHaveLength(100);
    await stop(miniflare);
  }, 120_000);
});

describe('wrangler.toml', () => {
  it('declares the RUNS binding and its SQLite migration, which wrangler deploy --dry-run accepts', async () => {
    const result = await wranglerDryRun('tests/worker/agents');
    expect(result.output).toContain('--dry-run: exiting now.');
    expect(result.output).toMatch(/env\.RUNS\s*\(RunCoordinator\)/);
    // wrangler's dry run prints bindings, not migrations: the SQLite migration is read from the file.
    const toml = await readFile(path.join(packageRoot(), 'wrangler.toml'), 'utf8');
    expect(toml).toMatch(/\[\[migrations\]\]\s*\ntag = "v1"\s*\nnew_sqlite_classes = \["RunCoordinator"\]/);
  }, 180_000);
});
