/**
 * Durable runs on Deno (worker/deno/deno-runs.ts), driven over HTTP against the real `deno` binary:
 * two Deno processes serve the bundled worker over one Deno KV file, as two instances of a
 * deployment would. The same contract as the run coordinator's (tests/worker/durable-runs.test.ts):
 * background runs through the Deno KV queue (202, Location), cancel (also from the other process),
 * 20 concurrent resumes across both processes with exactly one winner, an SSE follower of a
 * 200-event run dropping 3 times and reconnecting with Last-Event-ID (to either process), a client
 * leaving a stream, 100 concurrent background runs, and a process killed mid-run (SIGKILL) whose
 * run a restarted process continues from its last node checkpoint (found by its lease scan, or,
 * with scans off, by the queue's watchdog message), or stopped (SIGTERM) handing its run over.
 * The model is the mock server.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.js';
import { bundleDenoServer, startDenoServer, stopDenoServer, type DenoServer } from '../support/deno-server.js';
import { followWithDrops, readSse, sseEvents } from '../worker/durable-harness.js';
import { relayCalls } from '../support/relay-calls.js';

let directory: string;
let bundle: string;
let mock: MockOpenAI;
let left: DenoServer;
let right: DenoServer;
const servers: DenoServer[] = [];
/** 60 characters in chunks of 2: 30 answer_chunk events, 25 ms apart. */
const ANSWER = 'The answer is forty-two, give or take a towel or two, really.';
const json = { 'content-type': 'application/json' };

/** A Deno process on `kvFile` (in the test directory); the model is the mock server unless `extra` says otherwise. */
async function startDeno(kvFile: string, extra: Record<string, string> = {}): Promise<DenoServer> {
  const server = await startDenoServer(bundle, {
    KV_PATH: path.join(directory, kvFile),
    LLM_BASE_URL: mock.url,
    LLM_MODEL: 'mock-model',
    SSE_HEARTBEAT_MS: '100',
    // Long enough that a busy machine never lets a live process's lease lapse mid-test.
    RUN_LEASE_MS: '3000',
    RUN_POLL_MS: '50',
    ...extra,
  });
  servers.push(server);
  return server;
}

async function post(server: DenoServer, route: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${server.url}${route}`, {
    method: 'POST',
    headers: { ...json, ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, json: (await response.json()) as any };
}

async function storedEvents(server: DenoServer, runId: string, after = 0): Promise<any[]> {
  const text = await (await fetch(`${server.url}/runs/${runId}/events?after=${after}`)).text();
  return text.trim() === ''
    ? []
    : text
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
}

async function waitFor<T>(probe: () => Promise<T | undefined>, what: string): Promise<T> {
  for (let attempt = 0; attempt < 1200; attempt++) {
    const found = await probe();
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`never saw ${what}`);
}

const finished = (server: DenoServer, runId: string) =>
  waitFor(async () => {
    const response = await fetch(`${server.url}/runs/${runId}`);
    const record = (await response.json()) as any;
    return response.status === 200 && record.status !== 'running' ? record : undefined;
  }, `run ${runId} finish`);

beforeAll(async () => {
  directory = await mkdtemp(path.join(tmpdir(), 'tea-edge-deno-durable-'));
  bundle = await bundleDenoServer(directory);
  mock = await startMockOpenAI({ replies: [ANSWER], chunkSize: 2, chunkDelayMs: 25 });
  [left, right] = await Promise.all([startDeno('shared.sqlite'), startDeno('shared.sqlite')]);
}, 120_000);

afterAll(async () => {
  for (const server of servers) await stopDenoServer(server, 'SIGKILL');
  await mock?.close();
  await rm(directory, { recursive: true, force: true });
});

describe('background runs through the Deno KV queue', () => {
  it('answers 202 with a Location at once; the run finishes without the client and is listed', async () => {
    const started = await post(
      left,
      '/agents/asker/runs',
      { input: { question: 'Long?' } },
      { prefer: 'respond-async' },
    );
    expect(started.status).toBe(202);
    const runId = started.json.run_id as string;
    expect(started.json).toEqual({ run_id: runId, status: 'running' });
    expect(started.headers.get('location')).toBe(`/runs/${runId}`);
    // Answered before the model finished streaming; the other process sees the same run.
    expect(((await (await fetch(`${right.url}/runs/${runId}`)).json()) as any).status).toBe('running');
    expect(await finished(right, runId)).toMatchObject({ status: 'completed', agent: 'asker' });
    const events = await storedEvents(right, runId);
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    expect(events.at(-1)).toMatchObject({
      type: 'done',
      data: { status: 'completed', state: { answer: { content: ANSWER } } },
    });
    expect(events.filter((event) => event.type === 'answer_chunk').length).toBeGreaterThanOrEqual(20);
    const listed = (await (await fetch(`${left.url}/runs?agent=asker`)).json()) as any;
    expect(listed.runs.map((run: { run_id: string }) => run.run_id)).toContain(runId);
  }, 60_000);

  it('POST /runs/:id/cancel stops a run, in its own process or from the other; then 409; unknown 404', async () => {
    mock.setFault({ type: 'delay', ms: 8000, times: 2 });
    const here = (await post(left, '/agents/asker/runs', { input: { question: 'Slow?' } }, { prefer: 'respond-async' }))
      .json.run_id as string;
    const there = (
      await post(left, '/agents/asker/runs', { input: { question: 'Slow too?' } }, { prefer: 'respond-async' })
    ).json.run_id as string;
    await waitFor(
      async () => ((await storedEvents(left, there)).some((event) => event.type === 'node_start') ? true : undefined),
      'the run started',
    );
    const [cancelledHere, cancelledThere] = await Promise.all([
      post(left, `/runs/${here}/cancel`, {}),
      post(right, `/runs/${there}/cancel`, {}),
    ]);
    mock.setFault();
    for (const [response, runId] of [
      [cancelledHere, here],
      [cancelledThere, there],
    ] as const) {
      expect(response.status).toBe(200);
      expect(response.json).toMatchObject({
        run_id: runId,
        status: 'cancelled',
        stop_reason: 'cancelled',
        error: { code: 'CANCELLED' },
      });
      expect((await finished(right, runId)).status).toBe('cancelled');
    }
    const again = await post(right, `/runs/${there}/cancel`, {});
    expect(again.status).toBe(409);
    expect(again.json.error.code).toBe('CONFLICT');
    expect((await post(left, '/runs/never-was/cancel', {})).status).toBe(404);
  }, 60_000);

  it('answers 404 for an unknown run id, and for one longer than a Deno KV key allows (not a storage error)', async () => {
    for (const runId of ['never-was', 'x'.repeat(5000)]) {
      for (const route of [`/runs/${runId}`, `/runs/${runId}/events`])
        expect((await fetch(`${left.url}${route}`)).status).toBe(404);
      expect((await post(left, `/runs/${runId}/resume`, {})).status).toBe(404);
      expect((await post(left, `/runs/${runId}/cancel`, {})).status).toBe(404);
    }
  }, 30_000);

  it('100 concurrent background runs, sent to both processes, all finish completed', async () => {
    const started = await Promise.all(
      Array.from({ length: 100 }, (_, index) =>
        post(
          index % 2 === 0 ? left : right,
          '/agents/quick/runs',
          { input: { question: `q${index}` } },
          { prefer: 'respond-async' },
        ),
      ),
    );
    expect(started.map((response) => response.status)).toEqual(Array.from({ length: 100 }, () => 202));
    const records = await Promise.all(
      started.map((response, index) => finished(index % 2 === 0 ? right : left, response.json.run_id)),
    );
    expect(records.filter((record) => record.status === 'completed')).toHaveLength(100);
  }, 120_000);
});

describe('resumes through Deno KV atomic checks', () => {
  it('20 concurrent resumes of one pause across two processes: exactly one wins, the rest are 409', async () => {
    const started = await post(left, '/agents/counter/runs', { input: { count: 1 } });
    expect(started.json).toMatchObject({ status: 'interrupted', stop_reason: 'interrupt_before' });
    const runId = started.json.run_id as string;
    // Each names the pause it answers, so one that arrives after the winner paused again is refused too.
    const pause = { checkpoint_id: started.json.interrupt.checkpoint_id as string };
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, index) => post(index % 2 === 0 ? left : right, `/runs/${runId}/resume`, pause)),
    );
    const statuses = results.map((result) => result.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 409)).toHaveLength(19);
    const winner = results.find((result) => result.status === 200)!.json;
    expect(winner).toMatchObject({ status: 'interrupted', stop_reason: 'interrupt_after' });
    const events = await storedEvents(right, runId);
    expect(events.filter((event) => event.type === 'node_start' && event.node === 'review')).toHaveLength(1);
    // A late answer to the first pause, sent after the run paused again: still refused.
    const late = await post(left, `/runs/${runId}/resume`, pause);
    expect(late.status).toBe(409);
    expect(late.json.error.message).toContain(winner.interrupt.checkpoint_id);
    const done = await post(right, `/runs/${runId}/resume`, { checkpoint_id: winner.interrupt.checkpoint_id });
    expect(done.json).toMatchObject({ status: 'completed', state: { total: 24 } });
    expect((await post(left, `/runs/${runId}/resume`, {})).status).toBe(409);
  }, 60_000);
});

describe('time travel on Deno', () => {
  it('POST /runs/:id/fork in one process makes a paused run that the other process resumes from the edited state', async () => {
    const parent = await post(left, '/agents/counter/runs', { input: { count: 1 } });
    const forked = await post(left, `/runs/${parent.json.run_id}/fork`, {
      node: 'review',
      state: { count: 20, steps: ['start', 'edited'] },
    });
    expect(forked.status).toBe(201);
    expect((await (await fetch(`${right.url}/runs/${forked.json.run_id}`)).json()) as object).toMatchObject({
      status: 'interrupted',
      parent_run_id: parent.json.run_id,
      forked_after: 'review',
    });
    const resumed = await post(right, `/runs/${forked.json.run_id}/resume`, {});
    expect(resumed.json).toMatchObject({
      run_id: forked.json.run_id,
      status: 'interrupted',
      stop_reason: 'interrupt_after',
      state: { total: 40, steps: ['start', 'edited', 'finish'] },
    });
    // The link survives the run's own records and pauses: the history shows it to the end.
    await post(left, `/runs/${forked.json.run_id}/resume`, {});
    expect((await (await fetch(`${left.url}/runs/${forked.json.run_id}`)).json()) as object).toMatchObject({
      status: 'completed',
      parent_run_id: parent.json.run_id,
      forked_after: 'review',
    });
  }, 30_000);
});

describe('host secrets on Deno (AGENT_SECRETS)', () => {
  it('a background run gets the named secret; the answer and the stored events carry it redacted', async () => {
    const token = 'tok-deno-5c2e8f-secret';
    const server = await startDeno('secrets.sqlite', {
      AGENT_SECRETS: 'SEARCH_TOKEN',
      SEARCH_TOKEN: token,
      OTHER: 'not-named',
    });
    const started = await post(server, '/agents/secret-user/runs', {}, { prefer: 'respond-async' });
    const record = await finished(server, started.json.run_id);
    expect(record.status).toBe('completed');
    const events = await storedEvents(server, started.json.run_id);
    const done = events.find((event) => event.type === 'done');
    expect(done.data.state.seen).toEqual({ header: 'Bearer [REDACTED]', other: true });
    expect(JSON.stringify(events)).not.toContain(token);
  }, 30_000);
});

describe('resumable event streams from Deno KV', () => {
  it('a resume answered as SSE streams its segment only, seq continuing, done last', async () => {
    const started = await post(left, '/agents/counter/runs', { input: { count: 1 } });
    const pausedAt = (await storedEvents(left, started.json.run_id)).length;
    const response = await fetch(`${right.url}/runs/${started.json.run_id}/resume`, {
      method: 'POST',
      headers: { ...json, accept: 'text/event-stream' },
      body: '{}',
    });
    const events = sseEvents((await readSse(response)).text);
    expect(events.map((event) => Number(event.id))).toEqual(events.map((_, index) => pausedAt + 1 + index));
    expect(events.at(-1)).toMatchObject({
      event: 'done',
      data: { data: { status: 'interrupted', stop_reason: 'interrupt_after' } },
    });
  }, 30_000);

  it('a follower of a 200-event run drops 3 times and, reconnecting with Last-Event-ID to either process, sees every event once, in order', async () => {
    // 200 two-character chunks, each unlike the one before (the client refuses a repeated chunk).
    const pieces = Array.from({ length: 200 }, (_, index) => `${String.fromCharCode(97 + (index % 26))}${index % 10}`);
    const long = await startMockOpenAI({ replies: [pieces.join('')], chunkSize: 2, chunkDelayMs: 5 });
    const server = await startDeno('long.sqlite', { LLM_BASE_URL: long.url });
    const other = await startDeno('long.sqlite', { LLM_BASE_URL: long.url });
    try {
      const started = await post(
        server,
        '/agents/asker/runs',
        { input: { question: 'Two hundred?' } },
        { prefer: 'respond-async' },
      );
      const runId = started.json.run_id as string;
      let connection = 0;
      // Each connection goes to the other process: the one not running the run reads Deno KV.
      const open = (headers: Record<string, string>) =>
        fetch(`${(connection++ % 2 === 0 ? server : other).url}/runs/${runId}/events`, { headers });
      const { seen, reconnects } = await followWithDrops(open, 3, 50);
      const stored = await storedEvents(other, runId);
      expect(reconnects).toBe(3);
      expect(stored.filter((event) => event.type === 'answer_chunk')).toHaveLength(200);
      expect(stored.at(-1).type).toBe('done');
      expect(seen).toEqual(stored.map((event) => event.seq));
      // NDJSON keeps ?after=.
      const tail = await storedEvents(server, runId, stored.length - 3);
      expect(tail.map((event) => event.seq)).toEqual([stored.length - 2, stored.length - 1, stored.length]);
    } finally {
      await long.close();
      await stopDenoServer(server);
      await stopDenoServer(other);
    }
  }, 90_000);

  it('a client leaving a foreground stream does not stop the run; with ?cancel_on_disconnect=1 it does', async () => {
    const start = (query: string) =>
      fetch(`${left.url}/agents/asker/runs${query}`, {
        method: 'POST',
        headers: { ...json, accept: 'text/event-stream' },
        body: JSON.stringify({ input: { question: 'Leave?' } }),
      });
    mock.setFault({ type: 'delay', ms: 8000, times: 1 });
    const dropped = await readSse(await start('?cancel_on_disconnect=1'), 2);
    const droppedId = sseEvents(dropped.text)[0]!.data.run_id as string;
    await new Promise((resolve) => setTimeout(resolve, 200));
    mock.setFault();
    const kept = await readSse(await start(''), 3);
    const keptId = sseEvents(kept.text)[0]!.data.run_id as string;
    expect((await finished(right, keptId)).status).toBe('completed');
    expect((await finished(right, droppedId)).status).toBe('cancelled');
  }, 60_000);
});

describe('a Deno process dies mid-run', () => {
  /**
   * Starts a relay run in the background on a process of `kvFile` and kills it (SIGKILL) while the
   * third node streams. Returns the run id, where its model requests start, and the final state of
   * an undisturbed run of the same input (run first on the same process).
   */
  async function killedInThirdNode(kvFile: string, extra: Record<string, string> = {}) {
    const first = await startDeno(kvFile, { RUN_LEASE_MS: '1000', ...extra });
    const undisturbed = await post(first, '/agents/relay/runs', { input: { topic: 'tea' } });
    expect(undisturbed.json.status).toBe('completed');
    const from = mock.requests.length;
    const runId = (await post(first, '/agents/relay/runs', { input: { topic: 'tea' } }, { prefer: 'respond-async' }))
      .json.run_id as string;
    await waitFor(
      async () =>
        (await storedEvents(first, runId)).find((event) => event.type === 'answer_chunk' && event.node === 'third'),
      'third streaming',
    );
    await stopDenoServer(first, 'SIGKILL');
    expect(relayCalls(mock.requests, from)).toMatchObject({ first: 1, second: 1, third: 1 });
    return { runId, from, state: undisturbed.json.state };
  }

  /** The run finished on `server` as if undisturbed; only `third`, running when its process died, ran twice. */
  async function expectContinuedFromThird(server: DenoServer, killed: { runId: string; from: number; state: unknown }) {
    expect(await finished(server, killed.runId)).toMatchObject({ status: 'completed', agent: 'relay' });
    const log = await storedEvents(server, killed.runId);
    expect(log.at(-1)).toMatchObject({ type: 'done', data: { status: 'completed', state: killed.state } });
    expect(log.map((event) => event.seq)).toEqual(log.map((_, index) => index + 1));
    expect(log.filter((event) => event.type === 'log' && event.data.source === 'durable')).toHaveLength(1);
    expect(log.filter((event) => event.type === 'node_start').map((event) => event.node)).toEqual([
      'first',
      'second',
      'third',
      'third',
      'fourth',
    ]);
    expect(relayCalls(mock.requests, killed.from)).toEqual({ first: 1, second: 1, third: 2, fourth: 1 });
  }

  it('a restarted process continues the run from its last node checkpoint, to the undisturbed final state; no finished node runs again', async () => {
    const killed = await killedInThirdNode('restart.sqlite');
    const second = await startDeno('restart.sqlite', { RUN_LEASE_MS: '1000' });
    // Resumes racing the restart are refused: the run is running (its lease), not paused.
    const resumes = await Promise.all(
      Array.from({ length: 20 }, () => post(second, `/runs/${killed.runId}/resume`, {})),
    );
    expect(resumes.map((response) => response.status)).toEqual(Array.from({ length: 20 }, () => 409));
    await expectContinuedFromThird(second, killed);
    await stopDenoServer(second);
  }, 90_000);

  it('without lease scans, the queue watchdog left by the killed process continues the run in the restarted one', async () => {
    const killed = await killedInThirdNode('watchdog.sqlite', { RUN_SCAN: '0' });
    const second = await startDeno('watchdog.sqlite', { RUN_LEASE_MS: '1000', RUN_SCAN: '0' });
    await expectContinuedFromThird(second, killed);
    await stopDenoServer(second);
  }, 90_000);

  it('a process stopped with SIGTERM hands its run over: the other process continues it from its node checkpoint', async () => {
    const leaving = await startDeno('handover.sqlite', { RUN_LEASE_MS: '60000' });
    const staying = await startDeno('handover.sqlite', { RUN_LEASE_MS: '60000' });
    const from = mock.requests.length;
    const runId = (await post(leaving, '/agents/relay/runs', { input: { topic: 'tea' } }, { prefer: 'respond-async' }))
      .json.run_id as string;
    await waitFor(
      async () =>
        (await storedEvents(staying, runId)).find((event) => event.type === 'answer_chunk' && event.node === 'second'),
      'second streaming',
    );
    await stopDenoServer(leaving, 'SIGTERM');
    // A 60 s lease: only the hand-over lets the other process take the run within the test's time.
    const record = await finished(staying, runId);
    expect(record).toMatchObject({ status: 'completed', agent: 'relay' });
    const log = await storedEvents(staying, runId);
    expect(log.map((event) => event.seq)).toEqual(log.map((_, index) => index + 1));
    expect(log.filter((event) => event.type === 'node_start').map((event) => event.node)).toEqual([
      'first',
      'second',
      'second',
      'third',
      'fourth',
    ]);
    expect(relayCalls(mock.requests, from)).toEqual({ first: 1, second: 2, third: 1, fourth: 1 });
    await stopDenoServer(staying);
  }, 60_000);

  it('a run whose max_duration_ms passed while no process ran it is closed as BUDGET_EXCEEDED, not continued', async () => {
    const first = await startDeno('deadline.sqlite');
    mock.setFault({ type: 'delay', ms: 20_000, times: 1 });
    const from = mock.requests.length;
    const runId = (
      await post(first, '/agents/deadline/runs', { input: { question: 'Late?' } }, { prefer: 'respond-async' })
    ).json.run_id as string;
    await waitFor(async () => (mock.requests.length > from ? true : undefined), 'the model request');
    await stopDenoServer(first, 'SIGKILL');
    mock.setFault();
    await new Promise((resolve) => setTimeout(resolve, 2600));
    const second = await startDeno('deadline.sqlite');
    const record = await finished(second, runId);
    expect(record).toMatchObject({
      status: 'failed',
      stop_reason: 'max_duration_ms',
      error: { code: 'BUDGET_EXCEEDED', details: { budget: 'max_duration_ms' } },
    });
    expect(mock.requests.length - from).toBe(1);
    expect((await storedEvents(second, runId)).at(-1)).toMatchObject({
      type: 'done',
      data: { status: 'failed', stop_reason: 'max_duration_ms' },
    });
    await stopDenoServer(second);
  }, 60_000);
});
