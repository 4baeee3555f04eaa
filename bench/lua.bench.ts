/**
 * Lua evaluator speed: evaluations per second of a 5-line evaluator compiled once and run with a
 * clean environment per call (one reused, reset VM), against a fresh sandboxed VM per evaluation
 * (the baseline: what isolation costs without reuse). Target ≥ 5,000/s. Also the cost of
 * compiling a chunk (which creates its sandboxed VM and syntax-checks the code).
 */
import { compileLua } from '../src/lua/compile-lua.js';
import type { BenchResult } from './bench-result.js';
import { cpuPerCall, stateFiller } from './measure.js';

const EVALUATOR = `local total = 0
for _, item in ipairs(output.items) do total = total + item.score end
local average = total / #output.items
local label = string.format("%s after %d: %.2f", state.topic, iteration, average)
return { valid = average >= 0.5, score = average, feedback = label }`;

function sampleGlobals(index: number): Record<string, unknown> {
  return {
    state: { topic: `batch ${index}`, question: 'Rate the answers', history: [{ role: 'user', content: 'hello' }] },
    variables: { threshold: 0.5 },
    output: {
      items: [0.2, 0.9, 0.7, 0.4, 0.8].map((score, position) => ({ id: position, score: (score + index / 1000) % 1 })),
    },
    iteration: index % 5,
  };
}

/** Runs `work` for about `milliseconds` (after a warm-up) and returns calls per second. */
function measure(work: (index: number) => unknown, milliseconds: number, warmUp: number): number {
  for (let index = 0; index < warmUp; index++) work(index);
  let calls = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < milliseconds) {
    for (let index = 0; index < 50; index++) work(calls + index);
    calls += 50;
    elapsed = performance.now() - start;
  }
  return (calls / elapsed) * 1000;
}

export async function run(): Promise<BenchResult[]> {
  const evaluator = compileLua(EVALUATOR, { node: 'bench', field: 'evaluator.run' });
  const globals = Array.from({ length: 64 }, (_, index) => sampleGlobals(index));
  const expected = JSON.stringify(compileLua(EVALUATOR, {}).run(globals[7]!));
  if (JSON.stringify(evaluator.run(globals[7]!)) !== expected) throw new Error('reused and fresh VMs disagree');

  const reused = measure((index) => evaluator.run(globals[index & 63]!), 3_000, 2_000);
  const fresh = measure((index) => compileLua(EVALUATOR, {}).run(globals[index & 63]!), 2_000, 100);
  const compiles = measure(() => compileLua(EVALUATOR, {}), 1_000, 100);
  return [
    {
      name: 'lua.evaluations_per_second',
      value: Math.round(reused),
      unit: 'evals/s',
      baseline_value: Math.round(fresh),
      ratio: Number((reused / fresh).toFixed(2)),
    },
    { name: 'lua.compile_chunk', value: Number((1_000_000 / compiles).toFixed(1)), unit: 'µs/chunk' },
    ...oneFieldReads(),
  ];
}

/**
 * A script node that reads one field (`return { i = state.i + 1 }`): small evaluations per
 * second of CPU, and the CPU of a call when the state also holds 120 KB or 1 MB it does not read
 * (the state enters Lua as it is read: src/lua/lazy-table.ts). Targets: ≥ 30,000/s; ≤ 2× at
 * 120 KB, ≤ 3× at 1 MB.
 */
function oneFieldReads(): BenchResult[] {
  const chunk = compileLua('return { i = state.i + 1 }', { node: 'bench', field: 'run' });
  const small = cpuPerCall(() => chunk.run({ state: { i: 1 } }), 5_000, 2_000);
  const results: BenchResult[] = [
    {
      name: 'lua.small_evaluations_per_second (one field read, CPU)',
      value: Math.round((1 / small) * 1000),
      unit: 'evals/s',
    },
  ];
  for (const [label, bytes] of [
    ['120 KB', 120_000],
    ['1 MB', 1_000_000],
  ] as const) {
    const state = { i: 1, big: stateFiller(bytes) };
    const perCall = cpuPerCall(() => chunk.run({ state }), 2_000);
    results.push({
      name: `lua.one_field_read with a ${label} state (CPU per call)`,
      value: Number((perCall * 1000).toFixed(2)),
      unit: 'µs/call',
      baseline_value: Number((small * 1000).toFixed(2)),
      ratio: Number((perCall / small).toFixed(2)),
    });
  }
  return results;
}
