/**
 * Prolog (issue 16): start-up (loading the engine chunk, then the first call of a chunk: a fresh
 * session, the state bridge, lists pre-loaded) and queries per second on a small rule set
 * (ancestors over a 6-fact family, one findall per call, each call in its own clean session).
 */
import type { CompiledScript } from '../src/core/script-sandbox.js';
import type { BenchResult } from './bench-result.js';
import { cpuPerCall, stateFiller } from './measure.js';

const RULES = `parent(tom, bob). parent(bob, ann). parent(bob, liz). parent(ann, joe). parent(joe, sue). parent(liz, max).
anc(X, Y) :- parent(X, Y).
anc(X, Y) :- parent(X, Z), anc(Z, Y).
state(who, Who), findall(D, anc(Who, D), Ds), length(Ds, N), return(count, N).`;

export async function run(): Promise<BenchResult[]> {
  const started = performance.now();
  const { prologSandbox } = await import('../src/prolog/prolog-script-sandbox.js');
  const chunk = prologSandbox.compile(RULES, { node: 'bench', field: 'run' });
  const first = chunk.run({ state: { who: 'tom' } }) as { count?: number };
  const startup = performance.now() - started;
  if (first.count !== 6) throw new Error(`the rule set answered ${JSON.stringify(first)}, expected 6 descendants`);
  for (let index = 0; index < 20; index++) chunk.run({ state: { who: 'bob' } });
  let calls = 0;
  const start = performance.now();
  while (performance.now() - start < 2_000) {
    chunk.run({ state: { who: calls % 2 === 0 ? 'tom' : 'bob' } });
    calls++;
  }
  const perSecond = (calls / (performance.now() - start)) * 1000;
  return [
    { name: 'prolog.startup_ms', value: Math.round(startup), unit: 'ms' },
    { name: 'prolog.queries_per_second', value: Math.round(perSecond), unit: 'queries/s' },
    ...oneLineGoal(prologSandbox.compile('state(i, I), J is I + 1, return(i, J).', { node: 'bench', field: 'run' })),
  ];
}

/**
 * A one-line goal (`state(i, I), J is I + 1, return(i, J).`): CPU per call with a small state,
 * and with 120 KB or 1 MB more the goal does not read (state/2 converts what is asked for:
 * src/prolog/state-facts.ts). Target ≤ 0.5 ms per call.
 */
function oneLineGoal(chunk: CompiledScript): BenchResult[] {
  const small = cpuPerCall(() => chunk.run({ state: { i: 1 } }), 2_000, 1_000);
  const results: BenchResult[] = [
    { name: 'prolog.one_line_goal (CPU per call)', value: Number((small * 1000).toFixed(1)), unit: 'µs/call' },
  ];
  for (const [label, bytes] of [
    ['120 KB', 120_000],
    ['1 MB', 1_000_000],
  ] as const) {
    const state = { i: 1, big: stateFiller(bytes) };
    const perCall = cpuPerCall(() => chunk.run({ state }), 1_000);
    results.push({
      name: `prolog.one_line_goal with a ${label} state (CPU per call)`,
      value: Number((perCall * 1000).toFixed(1)),
      unit: 'µs/call',
      baseline_value: Number((small * 1000).toFixed(1)),
      ratio: Number((perCall / small).toFixed(2)),
    });
  }
  return results;
}
