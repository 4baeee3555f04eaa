/**
 * The Prolog corpus runner, runtime-neutral: runs each agent (text given) through the whole
 * engine with Prolog loaded on demand, and reports {name, status, error, state}. The same module
 * runs in Node (vitest) and bundled into workerd, Chromium and Deno (prolog-runtimes.test.ts), so
 * their outcomes can be compared whole. After the hostile agents, a normal one runs again in the
 * same isolate: the host keeps serving.
 */
import { loadAgent } from '../../src/load-agent-with-scripts.js';
import { runAgent } from '../../src/graph/run-agent.js';
import { ALL_SCRIPT_SANDBOXES } from '../../src/lua/lua-script-sandbox.js';
import { withPrologWhenUsed } from '../../src/prolog/load-prolog.js';

export interface CorpusAgent {
  name: string;
  yaml: string;
}

export interface CorpusOutcome {
  name: string;
  status: string;
  error: string | null;
  budget: unknown;
  state: Record<string, unknown>;
}

export async function runPrologCorpus(agents: readonly CorpusAgent[]): Promise<CorpusOutcome[]> {
  const outcomes: CorpusOutcome[] = [];
  for (const { name, yaml } of [
    ...agents,
    ...agents
      .filter((agent) => !agent.name.startsWith('hostile-'))
      .slice(0, 1)
      .map((agent) => ({ ...agent, name: `${agent.name} (again, after the hostile agents)` })),
  ]) {
    const scripts = await withPrologWhenUsed(ALL_SCRIPT_SANDBOXES, [yaml]);
    const run = runAgent(loadAgent(yaml, { file: `${name}.yaml`, scripts }), {});
    for await (const _event of run);
    const result = await run.result;
    outcomes.push({
      name,
      status: result.status,
      error: result.error?.code ?? null,
      budget: result.error?.details?.budget ?? null,
      state: result.state,
    });
  }
  return outcomes;
}
