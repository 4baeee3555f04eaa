/**
 * Prolog (issue 16): start-up (loading the engine chunk, then the first call of a chunk: a fresh
 * session, the state bridge, lists pre-loaded) and queries per second on a small rule set
 * (ancestors over a 6-fact family, one findall per call, each call in its own clean session).
 */
import type { BenchResult } from './bench-result.js';

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
  ];
}
