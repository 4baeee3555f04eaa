/**
 * Durable runs on Deno (worker/deno/deno-runs.ts), against the real `deno` binary: two processes serve
 * the bundled worker over one Deno KV file. How long a node's event takes to reach an SSE follower
 * connected to the process running the run (woken by each commit) and to the other process (which
 * polls Deno KV every RUN_POLL_MS), median and p95; the Deno KV writes of a 100-event run (every
 * atomic commit, set, delete and enqueue of both processes, counted by a wrapper of Deno.Kv loaded
 * before the bundle); and scripted-model runs per second through the Deno path.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { startMockOpenAI } from '../tests/support/mock-openai-server.js';
import { bundleDenoServer, startDenoServer, stopDenoServer, type DenoServer } from '../tests/support/deno-server.js';
import { CHUNKS, latencies, percentile } from './durable.bench.js';
import type { BenchResult } from './bench-result.js';

/** Loaded instead of the bundle: counts Deno KV writes, prints the count every 50 ms, then loads the bundle. */
const COUNTING_ENTRY = `
let writes = 0;
const commit = Deno.AtomicOperation.prototype.commit;
Deno.AtomicOperation.prototype.commit = function () { writes++; return commit.call(this); };
for (const name of ['set', 'delete', 'enqueue']) {
  const original = Deno.Kv.prototype[name];
  Deno.Kv.prototype[name] = function (...args) { writes++; return original.apply(this, args); };
}
setInterval(() => console.log('kv-writes ' + writes), 50);
await import('./deno-worker.js');
`;

function writesOf(server: DenoServer): number {
  return Number([...server.output().matchAll(/kv-writes (\d+)/g)].at(-1)?.[1] ?? 0);
}

async function post(
  server: DenoServer,
  route: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<any> {
  const response = await fetch(`${server.url}${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return response.json();
}

export async function run(): Promise<BenchResult[]> {
  const results: BenchResult[] = [];
  const written: number[] = [];
  const mock = await startMockOpenAI({
    replies: [CHUNKS.join('')],
    chunkSize: 2,
    chunkDelayMs: 5,
    onContentChunkWritten: (_index, time) => written.push(time),
  });
  const directory = await mkdtemp(path.join(tmpdir(), 'tea-edge-deno-bench-'));
  const servers: DenoServer[] = [];
  try {
    await bundleDenoServer(directory);
    const entry = path.join(directory, 'counting-entry.js');
    await writeFile(entry, COUNTING_ENTRY);
    const environment = {
      KV_PATH: path.join(directory, 'bench.sqlite'),
      LLM_BASE_URL: mock.url,
      LLM_MODEL: 'mock-model',
      SSE_HEARTBEAT_MS: '5000',
    };
    for (let index = 0; index < 2; index++) servers.push(await startDenoServer(entry, environment));
    const [running, other] = servers as [DenoServer, DenoServer];

    const start = async () =>
      (await post(running, '/agents/asker/runs', { input: { question: 'Bench?' } }, { prefer: 'respond-async' }))
        .run_id as string;
    for (const [where, follower] of [
      ['the process running the run', running],
      ['the other process (RUN_POLL_MS 250)', other],
    ] as const) {
      const times = await latencies(mock, written, 5, start, (runId) =>
        fetch(`${follower.url}/runs/${runId}/events`, { headers: { accept: 'text/event-stream' } }),
      );
      results.push({
        name: `event → SSE follower on ${where}, Deno (median of ${times.length} events)`,
        value: percentile(times, 0.5),
        unit: 'ms',
      });
      results.push({
        name: `event → SSE follower on ${where}, Deno (p95 of ${times.length} events)`,
        value: percentile(times, 0.95),
        unit: 'ms',
      });
    }

    // Quiet first: the background runs above let go of their leases and queue messages.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const before = writesOf(running) + writesOf(other);
    const looped = await post(running, '/agents/looper/runs', { input: {} });
    const events = (await (await fetch(`${running.url}/runs/${looped.run_id}/events`)).text())
      .trim()
      .split('\n').length;
    await new Promise((resolve) => setTimeout(resolve, 200));
    const writes = writesOf(running) + writesOf(other) - before;
    results.push({
      name: `Deno KV writes (commits, sets, deletes, enqueues), ${events}-event run`,
      value: writes,
      unit: 'writes',
    });

    let next = 0;
    const total = 120;
    const began = performance.now();
    await Promise.all(
      Array.from({ length: 6 }, async () => {
        while (next < total) {
          next += 1;
          const answer = await post(servers[next % 2]!, '/agents/quick/runs', { input: { question: `q${next}` } });
          if (answer.status !== 'completed')
            throw new Error(`deno bench: a quick run answered ${JSON.stringify(answer).slice(0, 200)}`);
        }
      }),
    );
    results.push({
      name: 'scripted-model runs/s, Deno (120 requests, 6 at a time, 2 processes)',
      value: (total / (performance.now() - began)) * 1000,
      unit: 'req/s',
    });
  } finally {
    for (const server of servers) await stopDenoServer(server);
    await mock.close();
    await rm(directory, { recursive: true, force: true });
  }
  return results;
}
