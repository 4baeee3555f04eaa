/**
 * `tea-edge serve` under load (issue 23), for durable.bench.ts: a real `serve` process (its own
 * event loop, default run limit and queue) runs the `quick` agent (one scripted model call, one Lua
 * node) for `clients` clients that each start runs one after another (JSON, foreground) for a
 * fixed time; a client answered 503 waits its `Retry-After` and asks again. Meanwhile a prober asks
 * `/health` every 50 ms. Reported: completed runs per second, p99 latency of a completed run
 * request, requests refused 503, and `/health` p99.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { BenchResult } from './bench-result.js';

const LOAD_MS = 5_000;
const HEALTH_EVERY_MS = 50;

export function percentile(values: number[], fraction: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))]!;
}

/** Starts `tea-edge serve --port 0` and resolves with its URL once it says it listens. */
export async function startServe(root: string, traceDir: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [path.join(root, 'bin/tea-edge.js'), 'serve', '--port', '0', '--agents', path.join(root, 'tests/worker/agents'), '--trace-dir', traceDir], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
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
}

async function load(url: string, clients: number): Promise<LoadFigures> {
  const runTimes: number[] = [];
  const healthTimes: number[] = [];
  let refused = 0;
  let failed = 0;
  const started = performance.now();
  const end = started + LOAD_MS;
  const client = async () => {
    while (performance.now() < end) {
      const sent = performance.now();
      const response = await fetch(`${url}/agents/quick/runs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"input":{"question":"Bench?"}}' });
      await response.arrayBuffer();
      if (response.status === 200) runTimes.push(performance.now() - sent);
      else if (response.status === 503) {
        refused++;
        await new Promise((resolve) => setTimeout(resolve, Number(response.headers.get('retry-after') ?? '1') * 1000));
      } else failed++;
    }
  };
  const prober = async () => {
    while (performance.now() < end) {
      const sent = performance.now();
      const response = await fetch(`${url}/health`);
      await response.arrayBuffer();
      healthTimes.push(performance.now() - sent);
      await new Promise((resolve) => setTimeout(resolve, HEALTH_EVERY_MS));
    }
  };
  await Promise.all([prober(), ...Array.from({ length: clients }, client)]);
  const elapsed = (performance.now() - started) / 1000;
  return { runsPerSecond: runTimes.length / elapsed, runP99: percentile(runTimes, 0.99), refused, failed, healthP99: percentile(healthTimes, 0.99) };
}

/** The figures at 10, 50 and 200 clients against one `serve` process. */
export async function serveLoad(root: string): Promise<BenchResult[]> {
  const traceDir = await mkdtemp(path.join(tmpdir(), 'tea-edge-serve-load-'));
  const { url, child } = await startServe(root, traceDir);
  const results: BenchResult[] = [];
  try {
    for (const clients of [10, 50, 200]) {
      const figures = await load(url, clients);
      const at = `tea-edge serve, ${clients} clients, scripted model, default run limit`;
      results.push({ name: `${at}: completed runs/s`, value: figures.runsPerSecond, unit: 'runs/s' });
      results.push({ name: `${at}: run request p99`, value: figures.runP99, unit: 'ms' });
      results.push({ name: `${at}: requests answered 503 OVERLOADED`, value: figures.refused, unit: 'requests' });
      results.push({ name: `${at}: requests failed otherwise`, value: figures.failed, unit: 'requests' });
      results.push({ name: `${at}: /health p99`, value: figures.healthP99, unit: 'ms' });
    }
  } finally {
    child.kill();
    await new Promise((resolve) => child.once('exit', resolve));
    await rm(traceDir, { recursive: true, force: true });
  }
  return results;
}
