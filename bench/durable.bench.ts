/**
 * Durable runs (issue 14): how long a node's event takes to reach a client following the run
 * (median and p95; the run coordinator in Miniflare, and `tea-edge serve` on Node), the storage
 * writes of a 100-event run on the Durable Object path (SQLite rows the object wrote, KV puts of
 * its listing index), and runs per second through the Durable Object path against the KV path,
 * measured in one bench run on the same bundle. The worker's upload size is in worker.bench.ts.
 * Then a real `tea-edge serve` process under 10, 50 and 200 clients (bench/serve-load.ts), and
 * `GET /runs` on one with 10,000 runs in its trace directory (bench/run-listing-load.ts).
 *
 * Latency: the mock model (in this process) notes when it writes each content chunk; the follower
 * (an SSE client in this process, connected before the model starts streaming) notes when the
 * matching `answer_chunk` event arrives. The difference spans the model's socket, the engine, the
 * event's SQLite write (or the live log on Node), the follower's wake-up and the SSE socket.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Miniflare } from 'miniflare';
import { startMockOpenAI, type MockOpenAI } from '../tests/support/mock-openai-server.js';
import { bundleTestWorker, call, startWorker } from '../tests/worker/miniflare-harness.js';
import { sseEvents, startDurableWorker } from '../tests/worker/durable-harness.js';
import { serve } from '../worker/node/node.js';
import type { DurableObjectNamespaceLike } from '../worker/cloudflare/durable-routes.js';
import type { BenchResult } from './bench-result.js';
import { serveLoad } from './serve-load.js';
import { runListingLoad } from './run-listing-load.js';

/** 100 two-character chunks, each unlike the one before (the client refuses a repeated chunk). */
export const CHUNKS = Array.from(
  { length: 100 },
  (_, index) => `${String.fromCharCode(97 + (index % 26))}${index % 10}`,
);

export function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))]!;
}

/** Follows one background run over SSE; returns the arrival time of each answer_chunk, in order. */
export async function followChunks(open: () => Promise<{ body: unknown }>): Promise<number[]> {
  const response = await open();
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const arrivals: number[] = [];
  let text = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return arrivals;
    const now = performance.now();
    text += decoder.decode(value, { stream: true });
    const end = text.lastIndexOf('\n\n');
    if (end < 0) continue;
    for (const event of sseEvents(text.slice(0, end + 2))) {
      if (event.event === 'answer_chunk') arrivals.push(now);
      if (event.event === 'done') return arrivals;
    }
    text = text.slice(end + 2);
  }
}

/**
 * Event → follower latencies of `runs` background runs of the `asker` agent: `start` starts one
 * and returns its id, `follow` opens its SSE events.
 */
export async function latencies(
  mock: MockOpenAI,
  written: number[],
  runs: number,
  start: () => Promise<string>,
  follow: (runId: string) => Promise<{ body: unknown }>,
): Promise<number[]> {
  const all: number[] = [];
  for (let index = 0; index < runs; index++) {
    written.length = 0;
    // The model waits a moment, so the follower is connected before the first chunk.
    mock.setFault({ type: 'delay', ms: 300, times: 1 });
    const runId = await start();
    const arrivals = await followChunks(() => follow(runId));
    if (arrivals.length !== written.length)
      throw new Error(`durable bench: ${arrivals.length} chunks followed, ${written.length} written`);
    arrivals.forEach((arrival, chunk) => {
      all.push(arrival - written[chunk]!);
    });
  }
  mock.setFault();
  return all;
}

/** Runs per second of the quick agent through a worker: `total` requests, `concurrency` at a time. */
async function runsPerSecond(miniflare: Miniflare, total: number, concurrency: number): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        next += 1;
        const response = await call(miniflare, 'POST', '/agents/quick/runs', { input: { question: `q${next}` } });
        if (response.json?.status !== 'completed')
          throw new Error(`durable bench: a quick run answered ${response.status}`);
      }
    }),
  );
  return (total / (performance.now() - started)) * 1000;
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
  const script = await bundleTestWorker();
  const persist = await mkdtemp(path.join(tmpdir(), 'tea-edge-durable-bench-'));
  try {
    const model = { LLM_BASE_URL: mock.url, LLM_MODEL: 'mock-model', SSE_HEARTBEAT_MS: '5000' };
    const durable = await startDurableWorker(script, { bindings: model });
    try {
      const start = async () =>
        (
          await call(
            durable,
            'POST',
            '/agents/asker/runs',
            { input: { question: 'Bench?' } },
            { prefer: 'respond-async' },
          )
        ).json.run_id as string;
      const follow = (runId: string) =>
        durable.dispatchFetch(`http://worker.test/runs/${runId}/events`, { headers: { accept: 'text/event-stream' } });
      const times = await latencies(mock, written, 5, start, follow);
      results.push({
        name: `event → SSE follower, run coordinator (median of ${times.length} events)`,
        value: percentile(times, 0.5),
        unit: 'ms',
      });
      results.push({
        name: `event → SSE follower, run coordinator (p95 of ${times.length} events)`,
        value: percentile(times, 0.95),
        unit: 'ms',
      });

      // Storage writes of a 100-event run (the looper agent), read from its object.
      const looped = await call(durable, 'POST', '/agents/looper/runs', { input: {} });
      const runId = looped.json.run_id as string;
      const events = (await call(durable, 'GET', `/runs/${runId}/events`)).text.trim().split('\n').length;
      const namespace = (await durable.getDurableObjectNamespace('RUNS')) as unknown as DurableObjectNamespaceLike;
      const stats = (await (
        await namespace.get(namespace.idFromName(runId) as never).fetch('https://run-coordinator/stats')
      ).json()) as { rows: number; kv_puts: number };
      results.push({
        name: `Durable Object SQLite rows written, ${events}-event run (events, node checkpoints, record)`,
        value: stats.rows,
        unit: 'rows',
      });
      results.push({
        name: `Workers KV puts of the listing index, ${events}-event run (Durable Object path)`,
        value: stats.kv_puts,
        unit: 'puts',
        baseline_value: 10,
        ratio: stats.kv_puts / 10,
      });

      const viaObject = await runsPerSecond(durable, 120, 6);
      const kvOnly = await startWorker(script, { bindings: model });
      try {
        const viaKv = await runsPerSecond(kvOnly, 120, 6);
        results.push({
          name: 'scripted-model runs/s, Durable Object path (120 requests, 6 at a time)',
          value: viaObject,
          unit: 'req/s',
          baseline_value: viaKv,
          ratio: viaObject / viaKv,
        });
        results.push({
          name: 'scripted-model runs/s, KV path (same bundle, no RUNS binding)',
          value: viaKv,
          unit: 'req/s',
        });
      } finally {
        await kvOnly.dispose();
      }
    } finally {
      await durable.dispose();
    }

    const server = await serve({
      port: 0,
      agentsDir: path.join(import.meta.dirname, '../tests/worker/agents'),
      traceDir: path.join(persist, 'traces'),
      webDemoDir: persist,
      app: { llm: { overrides: { api_base: mock.url, model: 'mock-model' } } },
    });
    try {
      const start = async () =>
        (
          (await (
            await fetch(`${server.url}/agents/asker/runs`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', prefer: 'respond-async' },
              body: JSON.stringify({ input: { question: 'Bench?' } }),
            })
          ).json()) as { run_id: string }
        ).run_id;
      const follow = (runId: string) =>
        fetch(`${server.url}/runs/${runId}/events`, { headers: { accept: 'text/event-stream' } });
      const times = await latencies(mock, written, 5, start, follow);
      results.push({
        name: `event → SSE follower, tea-edge serve with live log (median of ${times.length} events)`,
        value: percentile(times, 0.5),
        unit: 'ms',
      });
      results.push({
        name: `event → SSE follower, tea-edge serve with live log (p95 of ${times.length} events)`,
        value: percentile(times, 0.95),
        unit: 'ms',
      });
    } finally {
      await server.close();
    }
    results.push(...(await serveLoad(path.join(import.meta.dirname, '..'))));
    results.push(...(await runListingLoad(path.join(import.meta.dirname, '..'))));
  } finally {
    await mock.close();
    await rm(persist, { recursive: true, force: true });
  }
  return results;
}
