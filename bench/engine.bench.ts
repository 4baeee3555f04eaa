/**
 * Engine overhead per node step: a 3-node generate → evaluate → correct loop of trivial actions
 * routed by goto rules, 10,000 steps, events recorded in the memory store — against a plain-JS
 * loop doing the same work (the same three updates and the same routing decisions).
 */
import { createActionRegistry, createMemoryStores, loadAgent, runAgent } from '../src/index.js';
import type { ActionDefinition } from '../src/index.js';

const STEPS = 10_000;

const actions: ActionDefinition[] = [
  { name: 'bench.generate', description: 'next candidate', run: (_params, context) => ({ candidate: (context.state.candidate as number) + 1 }) },
  { name: 'bench.evaluate', description: 'score it', run: (_params, context) => ({ ok: (context.state.candidate as number) >= (context.state.target as number) }) },
  { name: 'bench.correct', description: 'note the correction', run: (_params, context) => ({ corrections: (context.state.corrections as number) + 1 }) },
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

export async function run() {
  const registry = createActionRegistry(actions);
  const agent = loadAgent(AGENT, { registry });
  const target = Math.ceil(STEPS / 3);
  const once = async () => {
    const stores = createMemoryStores();
    const started = performance.now();
    const result = await runAgent(agent, { candidate: 0, corrections: 0, target }, stores).result;
    const elapsed = performance.now() - started;
    if (result.status !== 'completed') throw new Error(`bench run ${result.status}: ${result.error?.message}`);
    const steps = target * 3 - 1;
    if ((await stores.traceStore.readEvents(result.run_id)).length === 0) throw new Error('bench run stored no events');
    return (elapsed * 1000) / steps;
  };
  await once();
  const samples = [await once(), await once(), await once()].sort((a, b) => a - b);
  const perStep = samples[1]!;

  plainLoop(target);
  const plainSamples: number[] = [];
  for (let index = 0; index < 5; index++) {
    const started = performance.now();
    plainLoop(target);
    plainSamples.push(((performance.now() - started) * 1000) / (target * 3 - 1));
  }
  plainSamples.sort((a, b) => a - b);
  const plain = plainSamples[2]!;
  return [
    { name: 'engine: overhead per node step (3-node goto loop, 10k steps, memory store)', value: perStep, unit: 'µs/step', baseline_value: plain, ratio: perStep / plain },
  ];
}
