/**
 * `GET /runs` on `tea-edge serve` with 10,000 runs in its trace directory (issue 23), for
 * durable.bench.ts: the records are written directly through the file store (as serve writes
 * them; finished runs of two agents, a second apart), then a real `serve` process on that
 * directory answers the first page, a page of one agent, and the page after a cursor, each asked
 * in turn. Reported: median and slowest of each, and the time to the first answer after the start.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createFsStores } from '../adapters/fs/index.js';
import type { RunRecord } from '../src/core/trace-store.js';
import type { BenchResult } from './bench-result.js';
import { percentile, startServe } from './serve-load.js';

const RUNS = 10_000;
const ASKS = 15;
/** Records written at once while the directory is filled. */
const WRITE_BATCH = 200;

/** Writes `RUNS` finished runs' records through the file store of `traceDir`. */
async function fillRuns(traceDir: string): Promise<void> {
  const { traceStore } = createFsStores(traceDir);
  const start = Date.now() - RUNS * 1000;
  for (let first = 0; first < RUNS; first += WRITE_BATCH) {
    const batch: Promise<void>[] = [];
    for (let index = first; index < Math.min(RUNS, first + WRITE_BATCH); index++) {
      const at = new Date(start + index * 1000).toISOString();
      const record: RunRecord = {
        run_id: crypto.randomUUID(),
        agent: index % 2 === 0 ? 'quick' : 'asker',
        status: 'completed',
        stop_reason: 'end',
        created_at: at,
        updated_at: at,
        event_count: 7,
      };
      batch.push(traceStore.putRun(record));
    }
    await Promise.all(batch);
  }
}

/** Milliseconds of one GET, checking that it answered a page of `expected` runs. */
async function timedGet(url: string, expected: number): Promise<{ ms: number; cursor?: string }> {
  const sent = performance.now();
  const response = await fetch(url);
  const page = (await response.json()) as { runs?: unknown[]; cursor?: string };
  const ms = performance.now() - sent;
  if (response.status !== 200 || page.runs?.length !== expected)
    throw new Error(`GET ${url} answered ${response.status} with ${page.runs?.length} runs, not ${expected}`);
  return { ms, ...(page.cursor !== undefined ? { cursor: page.cursor } : {}) };
}

/** The figures of GET /runs at 10,000 runs. */
export async function runListingLoad(root: string): Promise<BenchResult[]> {
  const traceDir = await mkdtemp(path.join(tmpdir(), 'tea-edge-run-listing-'));
  try {
    await fillRuns(traceDir);
    const { url, child } = await startServe(root, traceDir);
    try {
      const first = await timedGet(`${url}/runs`, 50);
      const firstPage: number[] = [];
      const byAgent: number[] = [];
      const afterCursor: number[] = [];
      for (let ask = 0; ask < ASKS; ask++) {
        firstPage.push((await timedGet(`${url}/runs`, 50)).ms);
        byAgent.push((await timedGet(`${url}/runs?agent=asker&limit=20`, 20)).ms);
        afterCursor.push((await timedGet(`${url}/runs?cursor=${encodeURIComponent(first.cursor!)}`, 50)).ms);
      }
      const at = `GET /runs, tea-edge serve, ${RUNS.toLocaleString('en-US')} runs`;
      return [
        { name: `${at}: first ask after start`, value: first.ms, unit: 'ms' },
        { name: `${at}: first page (median of ${ASKS})`, value: percentile(firstPage, 0.5), unit: 'ms' },
        { name: `${at}: first page (slowest of ${ASKS})`, value: Math.max(...firstPage), unit: 'ms' },
        { name: `${at}: ?agent=…&limit=20 (median of ${ASKS})`, value: percentile(byAgent, 0.5), unit: 'ms' },
        { name: `${at}: page after a cursor (median of ${ASKS})`, value: percentile(afterCursor, 0.5), unit: 'ms' },
        { name: `${at}: page after a cursor (slowest of ${ASKS})`, value: Math.max(...afterCursor), unit: 'ms' },
      ];
    } finally {
      child.kill();
      await new Promise((resolve) => child.once('exit', resolve));
    }
  } finally {
    await rm(traceDir, { recursive: true, force: true });
  }
}
