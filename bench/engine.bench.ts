/**
 * Engine overhead per node step: a 3-node generate → evaluate → correct loop of trivial actions
 * routed by goto rules, 10,000 steps, events recorded in the memory store — against a plain-JS
 * loop doing the same work (the same three updates and the same routing decisions), measured in
 * the same run. Wall and CPU time are both shown (bench/measure.ts).
 */
import { createActionRegistry, createMemoryStores, loadAgent, runAgent } from '../src/index.js';
import type { ActionDefinition } from '../src/index.js';
import type { BenchResult } from './bench-result.js';
import { median, timed } from './measure.js';

const STEPS = 10_000;
const PLAIN_ROUNDS = 20;

const actions: ActionDefinition[] = [
  {
    name: 'bench.generate',
    description: 'next candidate',
    run: (_params, context) => ({ candidate: (context.state.candidate as number) + 1 }),
  },
  {
    name: 'bench.evaluate',
    description: 'score it',
    run: (_params, context) => ({ ok: (context.state.candidate as number) >= (context.state.target as number) }),
  },
  {
    name: 'bench.correct',
    description: 'note the correction',
    run: (_params, context) => ({ corrections: (context.state.corrections as number) + 1 }),
  },
];

const AGENT = `name: bench-loop
settings:
  limits:
    max_steps: 100000
nodes:
  - name: generate
    uses: bench.generate
  - name: evaluate
    uses: bench.evaluate
    goto:
      - if: "state.ok"
        to: __end__
      - to: correct
  - name: correct
    uses: bench.correct
    goto: generate
`;

function plainLoop(target: number): Record<string, unknown> {
  const state: Record<string, unknown> = { candidate: 0, corrections: 0, target, ok: false };
  const events: unknown[] = [];
  let node = 'generate';
  let seq = 0;
  while (node !== '__end__') {
    events.push({ type: 'node_start', seq: ++seq, node });
    let update: Record<string, unknown>;
    if (node === 'generate') update = { candidate: (state.candidate as number) + 1 };
    else if (node === 'evaluate') update = { ok: (state.candidate as number) >= target };
    else update = { corrections: (state.corrections as number) + 1 };
    Object.assign(state, update);
    events.push({ type: 'node_end', seq: ++seq, node, data: { update } });
    node = node === 'generate' ? 'evaluate' : node === 'evaluate' ? (state.ok ? '__end__' : 'correct') : 'generate';
  }
  return state;
}

export async function run(): Promise<BenchResult[]> {
  const registry = createActionRegistry(actions);
  const agent = loadAgent(AGENT, { registry });
  const target = Math.ceil(STEPS / 3);
  const steps = target * 3 - 1;
  const once = async () => {
    const stores = createMemoryStores();
    let runId = '';
    const timing = await timed(async () => {
      const result = await runAgent(agent, { candidate: 0, corrections: 0, target }, stores).result;
      if (result.status !== 'completed') throw new Error(`bench run ${result.status}: ${result.error?.message}`);
      runId = result.run_id;
    });
    if ((await stores.traceStore.readEvents(runId)).length === 0) throw new Error('bench run stored no events');
    return timing;
  };
  await once();
  const engine = [await once(), await once(), await once(), await once(), await once()];
  const wall = (median(engine.map((timing) => timing.wallMs)) * 1000) / steps;
  const cpu = (median(engine.map((timing) => timing.cpuMs)) * 1000) / steps;

  plainLoop(target);
  // One plain loop takes well under a millisecond, finer than the CPU clock: each sample times 20.
  const plain: Array<{ wallMs: number; cpuMs: number }> = [];
  for (let index = 0; index < 5; index++) {
    plain.push(
      await timed(() => {
        for (let round = 0; round < PLAIN_ROUNDS; round++) plainLoop(target);
      }),
    );
  }
  const plainWall = (median(plain.map((timing) => timing.wallMs)) * 1000) / (steps * PLAIN_ROUNDS);
  const plainCpu = (median(plain.map((timing) => timing.cpuMs)) * 1000) / (steps * PLAIN_ROUNDS);
  return [
    {
      name: 'engine: overhead per node step (3-node goto loop, 10k steps, memory store)',
      value: round(wall),
      unit: 'µs/step',
      baseline_value: round(plainWall, 4),
      ratio: round(wall / plainWall),
    },
    {
      name: 'engine: overhead per node step, CPU time (same runs)',
      value: round(cpu),
      unit: 'µs/step',
      baseline_value: round(plainCpu, 4),
      ratio: round(cpu / plainCpu),
    },
  ];
}

function round(value: number, digits = 2): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}
