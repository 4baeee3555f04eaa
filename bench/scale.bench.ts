/**
 * Cost that does not grow with the work (`tea-edge bench scale`; docs/architecture.md "Scale"):
 * CPU per step of a one-node loop of each node kind — an expression (`run: {type: expression}`),
 * `state.set` with a template, Lua, Prolog, a scripted model call — while the state also holds
 * an untouched object of 1 KB, 100 KB or 1 MB, and per-step CPU as the run gets longer.
 *
 * Per-step cost is the slope between two run lengths (CPU of the longer run minus the shorter,
 * over the extra steps), so what a run costs once (loading the input, the final state) cancels
 * out. Run lengths: 10 → 10,000 steps for the expression and `state.set`, 10 → 1,000 for Lua,
 * Prolog and the model call (slower per step), and a 99,000-step `state.set` run at 1 KB (the
 * step ceiling is 100,000).
 * Each length is run three times and the cheapest run kept (the machine may be shared), after a
 * warm-up run of the longest length. Then the bytes each durable store and the trace write per step,
 * and the heap per paused run and per run in flight (bench/scale-costs.ts), and the large-state case
 * through the worker in Miniflare (bench/scale-worker.ts).
 */
import { createMemoryStores, loadAgent, luaSandbox, runAgent } from '../src/index.js';
import { prologSandbox } from '../src/prolog/prolog-script-sandbox.js';
import type { BenchResult } from './bench-result.js';
import { stateFiller, timed } from './measure.js';
import { memoryPerRun, writtenPerStep } from './scale-costs.js';
import { workerLargeState } from './scale-worker.js';

/** The body of the loop's node for each kind; each adds 1 to `state.i`. */
const KINDS: Record<string, { body: string; lengths: number[] }> = {
  expression: {
    body: 'run: { type: expression, value: "state.i + 1", output_key: i }',
    lengths: [10, 100, 1_000, 10_000],
  },
  'state.set': { body: 'uses: state.set\n    with: { i: "{{ state.i + 1 }}" }', lengths: [10, 100, 1_000, 10_000] },
  lua: { body: 'run: "return { i = state.i + 1 }"', lengths: [10, 100, 1_000] },
  prolog: { body: 'language: prolog\n    run: "state(i, I), J is I + 1, return(i, J)."', lengths: [10, 100, 1_000] },
  'model call': {
    body: 'uses: llm.call\n    with: { prompt: "step {{ state.i }}" }\n    output: reply',
    lengths: [10, 100, 1_000],
  },
};

const SIZES: Array<[string, number]> = [
  ['1 KB', 1_000],
  ['100 KB', 100_000],
  ['1 MB', 1_000_000],
];

/** The longest run, of `state.set` with the small state: per-step cost must stay flat (under the 100,000-step ceiling). */
const LONG_RUN = 99_000;
const MAX_STEPS = 100_000;

function agentYaml(kind: string): string {
  const { body } = KINDS[kind]!;
  // The model call does not count: a state.set node does it, in the same loop.
  const counter =
    kind === 'model call'
      ? '\n    goto: count\n  - name: count\n    uses: state.set\n    with: { i: "{{ state.i + 1 }}" }'
      : '';
  return `name: scale-${kind.replace(/\W+/g, '-')}
settings:
  limits: { max_steps: ${MAX_STEPS}, max_llm_calls: 10000 }
  llm: { provider: scripted, model: scripted, scripted: { rules: [], default: "ok" } }
nodes:
  - name: work
    ${body}${counter}
    goto:
      - if: "state.i >= state.n"
        to: __end__
      - to: work
`;
}

/** CPU milliseconds of one run of `loops` loops (the cheapest of `attempts` runs). */
async function runCpu(
  agent: ReturnType<typeof loadAgent>,
  state: Record<string, unknown>,
  loops: number,
  attempts = 3,
): Promise<number> {
  let best = Number.POSITIVE_INFINITY;
  for (let attempt = 0; attempt < attempts; attempt++) {
    const stores = createMemoryStores();
    const timing = await timed(async () => {
      const result = await runAgent(agent, { ...state, i: 0, n: loops }, stores).result;
      if (result.status !== 'completed') throw new Error(`scale run ${result.status}: ${result.error?.message}`);
    });
    best = Math.min(best, timing.cpuMs);
  }
  return best;
}

export async function run(): Promise<BenchResult[]> {
  const results: BenchResult[] = [];
  const states = SIZES.map(([label, bytes]) => [label, { big: stateFiller(bytes) }] as const);
  for (const kind of Object.keys(KINDS)) {
    const agent = loadAgent(agentYaml(kind), { scripts: { lua: luaSandbox, prolog: prologSandbox } });
    const { lengths } = KINDS[kind]!;
    const stepsPerLoop = kind === 'model call' ? 2 : 1;
    let small = 0;
    // Warm-up (the JIT): the longest run once, on the small state.
    await runCpu(agent, states[0]![1], lengths[lengths.length - 1]!, 1);
    for (const [label, state] of states) {
      await runCpu(agent, state, 10, 1);
      const cpu: number[] = [];
      for (const loops of lengths) cpu.push(await runCpu(agent, state, loops));
      const last = lengths.length - 1;
      const perStep = ((cpu[last]! - cpu[last - 1]!) * 1000) / ((lengths[last]! - lengths[last - 1]!) * stepsPerLoop);
      if (label === '1 KB') {
        small = perStep;
        // Flat with run length: the slope over each span of lengths.
        for (let index = 1; index < lengths.length; index++) {
          const span =
            ((cpu[index]! - cpu[index - 1]!) * 1000) / ((lengths[index]! - lengths[index - 1]!) * stepsPerLoop);
          results.push({
            name: `scale.${kind}: CPU per step, 1 KB state, steps ${lengths[index - 1]}→${lengths[index]}`,
            value: round(span),
            unit: 'µs/step',
          });
        }
      }
      results.push({
        name: `scale.${kind}: CPU per step, ${label} state${kind === 'model call' ? ' (a model call and a state.set counter: per node step)' : ''}`,
        value: round(perStep),
        unit: 'µs/step',
        baseline_value: round(small),
        ratio: round(perStep / small),
      });
    }
  }
  const agent = loadAgent(agentYaml('state.set'));
  const [, smallState] = states[0]!;
  const short = [await runCpu(agent, smallState, 100), await runCpu(agent, smallState, 1_000)];
  const long = [await runCpu(agent, smallState, LONG_RUN / 11), await runCpu(agent, smallState, LONG_RUN)];
  const shortStep = ((short[1]! - short[0]!) * 1000) / 900;
  const longStep = ((long[1]! - long[0]!) * 1000) / (LONG_RUN - LONG_RUN / 11);
  results.push({
    name: `scale.state.set: CPU per step, steps ${LONG_RUN / 11}→${LONG_RUN} against 100→1000 (1 KB state)`,
    value: round(longStep),
    unit: 'µs/step',
    baseline_value: round(shortStep),
    ratio: round(longStep / shortStep),
  });
  results.push(...(await writtenPerStep()), ...(await memoryPerRun()), ...(await workerLargeState()));
  return results;
}

function round(value: number, digits = 2): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}
