/**
 * Runs that survive their run coordinator (one Durable Object per run, SQLite) dying mid-run, in
 * Miniflare with the bundled worker and persisted storage: an instance is disposed in the middle of
 * a run and a new one is started on the same storage. The run continues from its last node
 * checkpoint and ends with the same final state as an undisturbed run; the nodes finished before
 * the checkpoint are not asked again (counted at the mock model); 20 resume requests racing the
 * restart through two workers do not continue it twice; a run past its max_duration_ms is closed
 * as BUDGET_EXCEEDED instead. Also: an SSE follower of a 200-event run dropping 3 times.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.js';
import { bundleTestWorker, call } from './miniflare-harness.js';
import { followWithDrops, relayRequests, secondWorker, startDurableWorker } from './durable-harness.js';

let script: string;
let mock: MockOpenAI;
let persist: string;
const running: Miniflare[] = [];
/** 60 characters in chunks of 2: each relay node streams for about 0.75 s. */
const ANSWER = 'The answer is forty-two, give or take a towel or two, really.';

async function instance(extra: Record<string, string> = {}): Promise<Miniflare> {
  const miniflare = await startDurableWorker(script, {
    persist,
    bindings: {
      LLM_BASE_URL: mock.url,
      LLM_MODEL: 'mock-model',
      SSE_HEARTBEAT_MS: '100',
      RUN_WATCHDOG_MS: '500',
      ...extra,
    },
  });
  running.push(miniflare);
  return miniflare;
}

async function stop(miniflare: Miniflare): Promise<void> {
  running.splice(running.indexOf(miniflare), 1);
  await miniflare.dispose();
}

function ndjson(text: string): any[] {
  return text.trim() === ''
    ? []
    : text
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
}

async function events(miniflare: Miniflare, runId: string): Promise<any[]> {
  return ndjson((await call(miniflare, 'GET', `/runs/${runId}/events`)).text);
}

async function waitFor<T>(probe: () => Promise<T | undefined>, what: string): Promise<T> {
  for (let attempt = 0; attempt < 600; attempt++) {
    const found = await probe();
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`never saw ${what}`);
}

const finished = (miniflare: Miniflare, runId: string) =>
  waitFor(async () => {
    const record = await call(miniflare, 'GET', `/runs/${runId}`);
    return record.status === 200 && record.json.status !== 'running' ? record.json : undefined;
  }, `run ${runId} finish`);

beforeAll(async () => {
  script = await bundleTestWorker();
  mock = await startMockOpenAI({ replies: [ANSWER], chunkSize: 2, chunkDelayMs: 25 });
  persist = await mkdtemp(path.join(tmpdir(), 'tea-edge-do-restart-'));
}, 120_000);

afterAll(async () => {
  for (const miniflare of running.splice(0)) await miniflare.dispose();
  await mock?.close();
  await rm(persist, { recursive: true, force: true });
});

describe('the run coordinator dies mid-run', () => {
  it('a new instance on the same storage continues the run from its last node checkpoint, once, to the same final state', async () => {
    const first = await instance();
    // The undisturbed run, for the final state to compare with.
    const undisturbed = await call(first, 'POST', '/agents/relay/runs', { input: { topic: 'tea' } });
    expect(undisturbed.json.status).toBe('completed');

    const from = mock.requests.length;
    const started = await call(
      first,
      'POST',
      '/agents/relay/runs',
      { input: { topic: 'tea' } },
      { prefer: 'respond-async' },
    );
    const runId = started.json.run_id as string;
    // Killed while `third` streams: `first` and `second` are behind the last checkpoint.
    await waitFor(
      async () => (await events(first, runId)).find((event) => event.type === 'answer_chunk' && event.node === 'third'),
      'third streaming',
    );
    await stop(first);
    const beforeRestart = relayRequests(mock, from);
    expect(beforeRestart).toMatchObject({ first: 1, second: 1, third: 1 });
    expect(beforeRestart.fourth).toBeUndefined();

    // 20 resume requests through two workers race the restart: the object continues the run itself,
    // once; every request is refused while it runs.
    const second = await instance();
    const other = await secondWorker(second);
    const resumes = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        call(index % 2 === 0 ? second : other, 'POST', `/runs/${runId}/resume`, {}),
      ),
    );
    expect(resumes.map((response) => response.status)).toEqual(Array.from({ length: 20 }, () => 409));

    const record = await finished(second, runId);
    expect(record).toMatchObject({ status: 'completed', agent: 'relay' });
    const log = await events(second, runId);
    expect(log.at(-1)).toMatchObject({ type: 'done', data: { status: 'completed', state: undisturbed.json.state } });
    // Every event once, numbered on from the first instance's last.
    expect(log.map((event) => event.seq)).toEqual(log.map((_, index) => index + 1));
    expect(log.filter((event) => event.type === 'log' && event.data.source === 'durable')).toHaveLength(1);
    expect(log.filter((event) => event.type === 'node_start').map((event) => event.node)).toEqual([
      'first',
      'second',
      'third',
      'third',
      'fourth',
    ]);
    // At the model: the nodes before the checkpoint were not asked again; `third` re-ran once.
    expect(relayRequests(mock, from)).toEqual({ first: 1, second: 1, third: 2, fourth: 1 });
    await stop(second);
  }, 90_000);

  it('a run whose max_duration_ms passed while its object was down is closed as BUDGET_EXCEEDED, not continued', async () => {
    const first = await instance();
    mock.setFault({ type: 'delay', ms: 20_000, times: 1 });
    const from = mock.requests.length;
    const started = await call(
      first,
      'POST',
      '/agents/deadline/runs',
      { input: { question: 'Late?' } },
      { prefer: 'respond-async' },
    );
    const runId = started.json.run_id as string;
    await waitFor(async () => (mock.requests.length > from ? true : undefined), 'the model request');
    await stop(first);
    mock.setFault();
    await new Promise((resolve) => setTimeout(resolve, 2600));
    const second = await instance();
    const record = await finished(second, runId);
    expect(record).toMatchObject({
      status: 'failed',
      stop_reason: 'max_duration_ms',
      error: { code: 'BUDGET_EXCEEDED', details: { budget: 'max_duration_ms' } },
    });
    expect(record.error.message).toMatch(/while its run coordinator was down/);
    expect(mock.requests.length - from).toBe(1);
    const log = await events(second, runId);
    expect(log.at(-1)).toMatchObject({ type: 'done', data: { status: 'failed', stop_reason: 'max_duration_ms' } });
    await stop(second);
  }, 60_000);
});

describe('a node that kills its object every time', () => {
  it('is continued 3 times from the same checkpoint, then closed failed on the next restart, saying why', async () => {
    // Every model request hangs: each instance dies while the node waits for it.
    mock.setFault({ type: 'delay', ms: 60_000 });
    const from = mock.requests.length;
    let miniflare = await instance();
    const started = await call(
      miniflare,
      'POST',
      '/agents/asker/runs',
      { input: { question: 'Again?' } },
      { prefer: 'respond-async' },
    );
    const runId = started.json.run_id as string;
    for (let continued = 0; continued <= 3; continued++) {
      await waitFor(
        async () => (mock.requests.length - from > continued ? true : undefined),
        `model request ${continued + 1}`,
      );
      await stop(miniflare);
      miniflare = await instance();
      // Any request about the run builds its object again, which continues it (or closes it).
      expect((await call(miniflare, 'GET', `/runs/${runId}`)).status).toBe(200);
    }
    const record = await finished(miniflare, runId);
    mock.setFault();
    expect(record).toMatchObject({ status: 'failed', error: { code: 'INTERNAL', node: 'ask' } });
    expect(record.error.message).toContain("continued 3 times at node 'ask'");
    expect(mock.requests.length - from).toBe(4);
    const log = await events(miniflare, runId);
    expect(log.filter((event) => event.type === 'log' && event.data.source === 'durable')).toHaveLength(3);
    expect(log.at(-1)).toMatchObject({ type: 'done', data: { status: 'failed' } });
    await stop(miniflare);
  }, 90_000);
});

describe('a 200-event run followed over SSE', () => {
  it('a follower that drops 3 times and reconnects with Last-Event-ID sees all of its events once, in order', async () => {
    // 200 two-character chunks, each unlike the one before (the client refuses a repeated chunk).
    const pieces = Array.from({ length: 200 }, (_, index) => `${String.fromCharCode(97 + (index % 26))}${index % 10}`);
    const long = await startMockOpenAI({ replies: [pieces.join('')], chunkSize: 2, chunkDelayMs: 5 });
    try {
      const miniflare = await instance({ LLM_BASE_URL: long.url });
      const started = await call(
        miniflare,
        'POST',
        '/agents/asker/runs',
        { input: { question: 'Two hundred?' } },
        { prefer: 'respond-async' },
      );
      const runId = started.json.run_id as string;
      const { seen, reconnects } = await followWithDrops(
        (headers) => miniflare.dispatchFetch(`http://worker.test/runs/${runId}/events`, { headers }),
        3,
        50,
      );
      const stored = await events(miniflare, runId);
      expect(reconnects).toBe(3);
      expect(stored.filter((event) => event.type === 'answer_chunk')).toHaveLength(200);
      expect(stored.at(-1).type).toBe('done');
      expect(seen).toEqual(stored.map((event) => event.seq));
      expect(new Set(seen).size).toBe(seen.length);
      await stop(miniflare);
    } finally {
      await long.close();
    }
  }, 60_000);
});
