/**
 * `tea-edge serve` under load (worker/run-slots.ts, src/graph/host-yield.ts): runs beyond
 * TEA_MAX_CONCURRENT_RUNS wait in a bounded line and beyond it are refused 503 OVERLOADED with
 * Retry-After, every accepted run finishing; a busy while_loop run whose iterations stay within
 * every budget leaves the server free to answer /health and a cancel while it runs. Real HTTP, the
 * mock model slowed down. No timing is asserted: only what happens before what.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunSlots } from '../../worker/run-slots.js';
import { createFsStores } from '../../adapters/fs/index.js';
import { serve, type RunningServer } from '../../worker/node/node.js';
import { startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.js';
import { runClient } from './durable-harness.js';

const BUSY = `name: busy
description: A while_loop of Lua bodies each doing a little arithmetic; many iterations, no waiting.
settings:
  limits:
    max_steps: 100000
nodes:
  - name: spin
    type: while_loop
    condition: "state.n < 1000"
    max_iterations: 1000
    body:
      - name: work
        language: lua
        run: |
          local x = 0
          for i = 1, 3000 do x = (x + i * 7) % 1000003 end
          return { n = (state.n or 0) + 1, x = x }
`;

let directory: string;
let mock: MockOpenAI;
let server: RunningServer;

beforeAll(async () => {
  directory = await mkdtemp(path.join(tmpdir(), 'tea-edge-serve-load-'));
  const agentsDir = path.join(directory, 'agents');
  await mkdir(agentsDir);
  await writeFile(path.join(agentsDir, 'busy.yaml'), BUSY);
  await writeFile(
    path.join(agentsDir, 'asker.yaml'),
    await readFile(path.join(import.meta.dirname, 'agents', 'asker.yaml'), 'utf8'),
  );
  mock = await startMockOpenAI({ replies: ['slow answer'], chunkSize: 4, chunkDelayMs: 5 });
  server = await serve({
    port: 0,
    agentsDir,
    traceDir: path.join(directory, 'traces'),
    maxConcurrentRuns: 2,
    runQueue: 1,
    app: { llm: { overrides: { api_base: mock.url, model: 'mock-model' } } },
  });
});

afterAll(async () => {
  await server?.close();
  await mock?.close();
  await rm(directory, { recursive: true, force: true });
});

const { post, waitForStatus } = runClient(() => server.url);

async function recordOf(runId: string): Promise<any> {
  return (await fetch(`${server.url}/runs/${runId}`)).json();
}

describe('RunSlots', () => {
  it('gives max slots, lines up maxWaiting more in order, refuses the rest, and hands a released slot to the first in line', async () => {
    const slots = new RunSlots(2, 1);
    const first = await slots.acquire();
    await slots.acquire();
    let lined = false;
    const waiting = slots.acquire().then((release) => ((lined = true), release));
    await expect(slots.acquire()).rejects.toMatchObject({ code: 'OVERLOADED' });
    expect(slots.load).toEqual({ running: 2, waiting: 1 });
    expect(lined).toBe(false);
    first();
    first(); // a second release of the same slot does nothing
    (await waiting)();
    expect(lined).toBe(true);
    expect(slots.load).toEqual({ running: 1, waiting: 0 });
    slots.take()();
    expect(slots.load.running).toBe(1);
  });
});

describe('serve under load', () => {
  it('beyond the running runs and the line, a start is 503 OVERLOADED with Retry-After; every accepted run completes', async () => {
    mock.setFault({ type: 'delay', ms: 1500, times: 3 });
    const started = await Promise.all(
      [0, 1].map((index) =>
        post('/agents/asker/runs', { input: { question: `q${index}` } }, { prefer: 'respond-async' }),
      ),
    );
    expect(started.map((answer) => answer.status)).toEqual([202, 202]);
    // The third waits in line (its answer comes once a slot is free); the fourth is refused now.
    const lined = post('/agents/asker/runs', { input: { question: 'q2' } }, { prefer: 'respond-async' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const refused = await post('/agents/asker/runs', { input: { question: 'q3' } }, { prefer: 'respond-async' });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.json.error.code).toBe('OVERLOADED');
    expect((await lined).status).toBe(202);
    const ids = [...started.map((answer) => answer.json.run_id), (await lined).json.run_id] as string[];
    for (const runId of ids)
      expect((await waitForStatus(runId, (status) => status !== 'running')).status).toBe('completed');
    mock.setFault();
  }, 60_000);

  it('a busy while_loop run leaves the server answering /health and a cancel while it runs', async () => {
    const started = await post('/agents/busy/runs', { input: { n: 0 } }, { prefer: 'respond-async' });
    expect(started.status).toBe(202);
    const runId = started.json.run_id as string;
    const health = await fetch(`${server.url}/health`);
    expect(health.status).toBe(200);
    // Answered while the run still runs: the loop gave the event loop back between iterations.
    expect((await recordOf(runId)).status).toBe('running');
    const cancelled = await post(`/runs/${runId}/cancel`, {});
    expect(cancelled.status).toBe(200);
    expect(cancelled.json).toMatchObject({ status: 'cancelled', error: { code: 'CANCELLED' } });
    expect(cancelled.json.state.n).toBeLessThan(1000);
  }, 60_000);
});

describe('serve keeps a bounded history', () => {
  it('applies its retention at start: the newest runs kept, older ones and those past the age removed, a running run never', async () => {
    const traceDir = path.join(directory, 'retained');
    const { traceStore } = createFsStores(traceDir);
    const at = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000).toISOString();
    for (let index = 0; index < 5; index++) {
      await traceStore.putRun({
        run_id: `done-${index}`,
        agent: 'asker',
        status: 'completed',
        stop_reason: 'completed',
        created_at: at(50 - index),
        updated_at: at(50 - index),
      });
    }
    await traceStore.putRun({
      run_id: 'ancient',
      agent: 'asker',
      status: 'failed',
      stop_reason: 'error',
      created_at: at(60 * 24 * 40),
      updated_at: at(60 * 24 * 40),
    });
    await traceStore.putRun({
      run_id: 'still-running',
      agent: 'asker',
      status: 'running',
      created_at: at(60 * 24 * 50),
      updated_at: at(60 * 24 * 50),
    });
    const retaining = await serve({
      port: 0,
      agentsDir: path.join(directory, 'agents'),
      traceDir,
      retention: { maxRuns: 3, maxAgeMs: 30 * 86_400_000 },
    });
    try {
      let ids: string[] = [];
      for (let attempt = 0; attempt < 200; attempt++) {
        ids = ((await (await fetch(`${retaining.url}/runs`)).json()) as any).runs.map((run: any) => run.run_id);
        if (!ids.includes('ancient')) break;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      // The newest three kept; a run that says it is running is never removed, whatever its age.
      expect(ids).toEqual(['done-4', 'done-3', 'done-2', 'still-running']);
    } finally {
      await retaining.close();
    }
  }, 30_000);
});
