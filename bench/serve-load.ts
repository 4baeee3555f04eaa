/**
 * `tea-edge serve` under load (issue 23), for durable.bench.ts: a real `serve` process (its own
 * event loop, default run limit and queue) runs the `quick` agent (one scripted model call, one Lua
 * node) for `clients` clients that each start runs one after another (JSON, foreground) for a
 * fixed time; a client answered 503 waits its `Retry-After` and asks again. Meanwhile a prober in a
 * process of its own (bench/serve-prober.mjs, so the clients' event loop is not counted) asks
 * `/health` every 50 ms, and cancels two `waiter` runs (a model call to a server that never
 * answers, started in the background before the clients) at a third and at two thirds of the time.
 * Reported: completed runs per second, p99 latency of a completed run request, requests refused
 * 503, `/health` p99, and the slower of the two cancels (the POST until its answer, which comes
 * once the run stopped and its end is recorded).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { BenchResult } from './bench-result.js';

const LOAD_MS = 5_000;

/** A run that waits on a model server that never answers: cancelled by the bench, never left to finish. */
const waiterAgent = (modelUrl: string) => `name: waiter
description: One model call to a server that never answers; cancelled by the bench.
settings:
  llm:
    api_base: ${modelUrl}
    model: hung
    first_token_timeout: 3600
    max_retries: 0
nodes:
  - name: ask
    uses: llm.call
    with:
      prompt: "Are you there?"
    output: reply
`;

export function percentile(values: number[], fraction: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))]!;
}

/** Starts `tea-edge serve --port 0` and resolves with its URL once it says it listens. */
export async function startServe(
  root: string,
  traceDir: string,
  agentsDir = path.join(root, 'tests/worker/agents'),
): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(
    process.execPath,
    [path.join(root, 'bin/tea-edge.js'), 'serve', '--port', '0', '--agents', agentsDir, '--trace-dir', traceDir],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let text = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const match = /serving on (http:\/\/\S+)/.exec(text);
      if (match !== null) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`tea-edge serve exited (${code}) before listening: ${text}`)));
  });
  child.stderr!.resume();
  return { url, child };
}

interface LoadFigures {
  runsPerSecond: number;
  runP99: number;
  refused: number;
  failed: number;
  healthP99: number;
  /** The slower of the two cancels, in milliseconds. */
  cancelMax: number;
}

const postJson = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

/** Starts a waiting run in the background; resolves with its id once it runs. */
async function startWaiter(url: string): Promise<string> {
  const response = await postJson(`${url}/agents/waiter/runs`, { input: {} }, { prefer: 'respond-async' });
  const answer = (await response.json()) as { run_id?: string };
  if (response.status !== 202 || answer.run_id === undefined)
    throw new Error(`serve load: a waiting run was answered ${response.status}`);
  return answer.run_id;
}

/** What the prober process (bench/serve-prober.mjs) measured. */
interface Probed {
  health: number[];
  cancels: Array<{ ms: number; status: number; run_status?: string }>;
}

/** Runs the prober for LOAD_MS, cancelling each run at its time; resolves with what it measured. */
function probeInOwnProcess(
  root: string,
  url: string,
  cancels: Array<{ runId: string; atMs: number }>,
): Promise<Probed> {
  const child = spawn(
    process.execPath,
    [
      path.join(root, 'bench/serve-prober.mjs'),
      url,
      String(LOAD_MS),
      ...cancels.map(({ runId, atMs }) => `${runId}@${atMs}`),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve, reject) =>
    child.once('exit', (code) => {
      if (code === 0) resolve(JSON.parse(output) as Probed);
      else reject(new Error(`serve load: the prober exited ${code}`));
    }),
  );
}

async function load(root: string, url: string, clients: number): Promise<LoadFigures> {
  const runTimes: number[] = [];
  let refused = 0;
  let failed = 0;
  const waiting = [await startWaiter(url), await startWaiter(url)];
  const started = performance.now();
  const end = started + LOAD_MS;
  const client = async () => {
    while (performance.now() < end) {
      const sent = performance.now();
      const response = await fetch(`${url}/agents/quick/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"input":{"question":"Bench?"}}',
      });
      await response.arrayBuffer();
      if (response.status === 200) runTimes.push(performance.now() - sent);
      else if (response.status === 503) {
        refused++;
        await new Promise((resolve) => setTimeout(resolve, Number(response.headers.get('retry-after') ?? '1') * 1000));
      } else failed++;
    }
  };
  const plan = waiting.map((runId, index) => ({ runId, atMs: ((index + 1) * LOAD_MS) / 3 }));
  const [probed] = await Promise.all([probeInOwnProcess(root, url, plan), ...Array.from({ length: clients }, client)]);
  const elapsed = (performance.now() - started) / 1000;
  const unfit = probed.cancels.find((cancel) => cancel.status !== 200 || cancel.run_status !== 'cancelled');
  if (unfit !== undefined || probed.cancels.length !== waiting.length)
    throw new Error(`serve load: a cancel was answered ${unfit?.status} (${unfit?.run_status})`);
  return {
    runsPerSecond: runTimes.length / elapsed,
    runP99: percentile(runTimes, 0.99),
    refused,
    failed,
    healthP99: percentile(probed.health, 0.99),
    cancelMax: Math.max(...probed.cancels.map((cancel) => cancel.ms)),
  };
}

/** The figures at 10, 50 and 200 clients against one `serve` process. */
export async function serveLoad(root: string): Promise<BenchResult[]> {
  const traceDir = await mkdtemp(path.join(tmpdir(), 'tea-edge-serve-load-'));
  // The model server of the waiting runs: it reads each request and never answers.
  const hung = createServer(() => undefined);
  await new Promise<void>((resolve) => hung.listen(0, '127.0.0.1', resolve));
  const agentsDir = path.join(traceDir, 'agents');
  await mkdir(agentsDir);
  await copyFile(path.join(root, 'tests/worker/agents/quick.yaml'), path.join(agentsDir, 'quick.yaml'));
  await writeFile(
    path.join(agentsDir, 'waiter.yaml'),
    waiterAgent(`http://127.0.0.1:${(hung.address() as AddressInfo).port}/v1`),
  );
  const { url, child } = await startServe(root, path.join(traceDir, 'traces'), agentsDir);
  const results: BenchResult[] = [];
  try {
    for (const clients of [10, 50, 200]) {
      const figures = await load(root, url, clients);
      const at = `tea-edge serve, ${clients} clients, scripted model, default run limit`;
      results.push({ name: `${at}: completed runs/s`, value: figures.runsPerSecond, unit: 'runs/s' });
      results.push({ name: `${at}: run request p99`, value: figures.runP99, unit: 'ms' });
      results.push({ name: `${at}: requests answered 503 OVERLOADED`, value: figures.refused, unit: 'requests' });
      results.push({ name: `${at}: requests failed otherwise`, value: figures.failed, unit: 'requests' });
      results.push({ name: `${at}: /health p99`, value: figures.healthP99, unit: 'ms' });
      results.push({
        name: `${at}: cancel of a run waiting on its model, slower of 2`,
        value: figures.cancelMax,
        unit: 'ms',
      });
    }
  } finally {
    child.kill();
    await new Promise((resolve) => child.once('exit', resolve));
    hung.closeAllConnections();
    hung.close();
    await rm(traceDir, { recursive: true, force: true });
  }
  return results;
}
