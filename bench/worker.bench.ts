/**
 * The edge worker: bundle size as `wrangler deploy --dry-run` reports it (target ≤ 160 KiB gzip)
 * for the project's agents and for agents without and with Lua (the build bundles only what the
 * agents use), start-up and first-request latency in Miniflare, requests per second for a
 * scripted-model agent through the full HTTP path (workerd + KV, loopback only, a bounded number
 * of requests), and Workers KV puts for a 100-event run (target ≤ 10).
 */
import { Miniflare } from 'miniflare';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { createKvStores, type KVNamespaceLike } from '../adapters/workers-kv/index.js';
import { runAgent } from '../src/graph/run-agent.js';
import { loadAgent } from '../src/load-agent-with-scripts.js';
import { bundleTestWorker, COMPATIBILITY_DATE, COMPATIBILITY_FLAGS } from '../tests/worker/miniflare-harness.js';
import { wranglerDryRun } from '../tests/worker/wrangler-dry-run.js';
import type { BenchResult } from './bench-result.js';

const LOOPER = `name: looper
nodes:
  - name: tick
    run: |
      return { i = (state.i or 0) + 1 }
    goto:
      - if: "state.i < 49"
        to: tick
      - to: __end__
`;

async function startMiniflare(script: string): Promise<{ miniflare: Miniflare; milliseconds: number }> {
  const started = performance.now();
  const miniflare = new Miniflare({
    modules: true,
    script,
    compatibilityDate: COMPATIBILITY_DATE,
    compatibilityFlags: COMPATIBILITY_FLAGS,
    kvNamespaces: ['TRACES'],
  });
  await miniflare.ready;
  return { miniflare, milliseconds: performance.now() - started };
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

/** KV puts of one run of 100 events through the engine, over Miniflare's KV. */
async function putsFor100Events(): Promise<{ puts: number; events: number }> {
  const { miniflare } = await startMiniflare('export default { fetch() { return new Response(""); } };');
  try {
    const inner = (await miniflare.getKVNamespace('TRACES')) as unknown as KVNamespaceLike;
    let puts = 0;
    const counting: KVNamespaceLike = {
      get: (key) => inner.get(key),
      put: (key, value, options) => {
        puts += 1;
        return inner.put(key, value, options);
      },
      delete: (key) => inner.delete(key),
      list: (options) => inner.list(options),
    };
    const run = runAgent(loadAgent(LOOPER, { file: 'looper.yaml' }), {}, createKvStores(counting));
    let events = 0;
    for await (const _event of run) events += 1;
    await run.result;
    return { puts, events };
  } finally {
    await miniflare.dispose();
  }
}

export async function run(): Promise<BenchResult[]> {
  const results: BenchResult[] = [];
  const dryRun = await wranglerDryRun();
  results.push({
    name: 'worker bundle, wrangler dry-run gzip (examples/: their agents use Lua, so it is included)',
    value: dryRun.gzipKiB,
    unit: 'KiB',
    baseline_value: 160,
    ratio: dryRun.gzipKiB / 160,
  });
  results.push({ name: 'worker bundle, wrangler dry-run upload (minified)', value: dryRun.uploadKiB, unit: 'KiB' });
  // The same agents without Lua, then with Lua asked for (TEA_WORKER_SCRIPTS=lua): what Lua costs.
  const noLua = await wranglerDryRun('tests/worker/agents-no-lua');
  results.push({
    name: 'worker bundle gzip, agents without Lua (no Lua VM, no MCP client)',
    value: noLua.gzipKiB,
    unit: 'KiB',
    baseline_value: 160,
    ratio: noLua.gzipKiB / 160,
  });
  const withLua = await wranglerDryRun('tests/worker/agents-no-lua', ['lua']);
  results.push({
    name: 'worker bundle gzip, the same agents with Lua included',
    value: withLua.gzipKiB,
    unit: 'KiB',
    baseline_value: 160,
    ratio: withLua.gzipKiB / 160,
  });

  const script = await bundleTestWorker();
  const directory = await mkdtemp(path.join(tmpdir(), 'tea-edge-bench-'));
  try {
    const file = path.join(directory, 'worker.mjs');
    await writeFile(file, script);
    const evaluation = await timed(() => import(pathToFileURL(file).href));
    results.push({
      name: 'worker module evaluation (parse + evaluate the bundle, V8 in Node)',
      value: evaluation,
      unit: 'ms',
    });
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
  const trivial = await startMiniflare('export default { fetch() { return new Response("ok"); } };');
  await trivial.miniflare.dispose();
  const worker = await startMiniflare(script);
  try {
    results.push({
      name: 'worker start-up in Miniflare (process + module evaluation)',
      value: worker.milliseconds,
      unit: 'ms',
      baseline_value: trivial.milliseconds,
      ratio: worker.milliseconds / trivial.milliseconds,
    });
    const call = (method: string, route: string, body?: unknown) =>
      worker.miniflare
        .dispatchFetch(`http://worker.test${route}`, {
          method,
          headers: { 'content-type': 'application/json' },
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        })
        .then((response) => response.text());
    results.push({
      name: 'first request (GET /agents: compiles the bundled agents)',
      value: await timed(() => call('GET', '/agents')),
      unit: 'ms',
    });
    results.push({
      name: 'first run (POST /agents/quick/runs)',
      value: await timed(() => call('POST', '/agents/quick/runs', { input: {} })),
      unit: 'ms',
    });
    const healthTimes: number[] = [];
    for (let index = 0; index < 21; index++) healthTimes.push(await timed(() => call('GET', '/health')));
    results.push({
      name: 'warm GET /health (median of 21)',
      value: healthTimes.sort((left, right) => left - right)[10]!,
      unit: 'ms',
    });
    const runTimes: number[] = [];
    for (let index = 0; index < 11; index++)
      runTimes.push(await timed(() => call('POST', '/agents/quick/runs', { input: {} })));
    results.push({
      name: 'warm scripted-model run, one at a time (median of 11; mostly Miniflare KV puts)',
      value: runTimes.sort((left, right) => left - right)[5]!,
      unit: 'ms',
    });

    const total = 120;
    const concurrency = 6;
    let next = 0;
    const elapsed = await timed(() =>
      Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next < total) {
            next += 1;
            await call('POST', '/agents/quick/runs', { input: { question: `q${next}` } });
          }
        }),
      ),
    );
    results.push({
      name: `scripted-model runs through HTTP + KV (${total} requests, ${concurrency} at a time)`,
      value: (total / elapsed) * 1000,
      unit: 'req/s',
    });
  } finally {
    await worker.miniflare.dispose();
  }

  const kv = await putsFor100Events();
  results.push({
    name: `Workers KV puts for a ${kv.events}-event run`,
    value: kv.puts,
    unit: 'puts',
    baseline_value: 10,
    ratio: kv.puts / 10,
  });
  return results;
}
