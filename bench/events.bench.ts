/**
 * The event sanitiser, alone (src/events/): CPU time per event made by the engine's event maker
 * for a small `node_end`, for one carrying a 4 KB state with a secret to redact, and for a `done`
 * whose 400 KB state is summarised (the copy stops early and the size is counted on the
 * original), with and without the sizes remembered from the event before. The baseline of each
 * is `JSON.stringify` of the same event.
 */
import { createEventMaker, type SizeMemo } from '../src/events/redact.js';
import type { BenchResult } from './bench-result.js';
import { cpuPerCall, stateFiller } from './measure.js';

const TYPES = ['node_end', 'done'];
const TS = '2026-01-01T00:00:00.000Z';
const SECRET = 'sk-bench-0123456789';

export async function run(): Promise<BenchResult[]> {
  const make = createEventMaker(TYPES, { secrets: [SECRET] });
  const small = { update: { candidate: 41, ok: false } };
  const medium = { update: { answer: `the key is ${SECRET}` }, state: stateFiller(4 * 1024) };
  const large = { status: 'completed', state: stateFiller(400 * 1024) };
  let seq = 0;
  const results: BenchResult[] = [];
  const figure = (name: string, data: unknown, type: string, calls: number, sizes?: () => SizeMemo) => {
    const event = { type, run_id: 'run-1', seq: 1, ts: TS, node: 'step', data };
    const micros =
      cpuPerCall(() => make(type as 'node_end', 'run-1', ++seq, TS, data, 'step', sizes?.()), calls) * 1000;
    const plain = cpuPerCall(() => JSON.stringify(event), calls) * 1000;
    results.push({
      name,
      value: round(micros),
      unit: 'µs/event',
      baseline_value: round(plain),
      ratio: round(micros / plain),
    });
  };
  figure('events: make a small node_end (CPU)', small, 'node_end', 20_000);
  figure('events: make a node_end with a 4 KB state, a secret in it (CPU)', medium, 'node_end', 2_000);
  figure('events: make a done with a 400 KB state, summarised (CPU)', large, 'done', 40, () => new WeakMap());
  const remembered: SizeMemo = new WeakMap();
  figure('events: the same done, sizes remembered from the event before (CPU)', large, 'done', 40, () => remembered);
  return results;
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
