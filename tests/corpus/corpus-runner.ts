/**
 * Runs the agent corpus (tests/agents/*.yaml with *.case.json) with whatever engine it is given,
 * so the same code runs in Node, inside Miniflare (bundled into a worker) and in Chromium
 * (bundled into a page). Results are plain JSON, compared by the Node-side tests.
 */
import type { CompiledAgent } from '../../src/graph/compiled-agent.js';
import type { AgentRun } from '../../src/graph/run-types.js';

export interface CorpusCase {
  name: string;
  yaml: string;
  input: Record<string, unknown>;
}

export interface CorpusOutcome {
  name: string;
  status: string;
  stop_reason: string;
  error_code: string | null;
  state: Record<string, unknown>;
  event_types: string[];
  seqs_ok: boolean;
}

export interface CorpusEngine {
  loadAgent(source: string, options?: { file?: string }): CompiledAgent;
  runAgent(agent: CompiledAgent, input: Record<string, unknown>): AgentRun;
}

export async function runCorpus(engine: CorpusEngine, cases: CorpusCase[]): Promise<CorpusOutcome[]> {
  const outcomes: CorpusOutcome[] = [];
  for (const corpusCase of cases) {
    const agent = engine.loadAgent(corpusCase.yaml, { file: `${corpusCase.name}.yaml` });
    const run = engine.runAgent(agent, corpusCase.input);
    const types: string[] = [];
    const seqs: number[] = [];
    for await (const event of run) {
      types.push(event.type);
      seqs.push(event.seq);
    }
    const result = await run.result;
    outcomes.push({
      name: corpusCase.name,
      status: result.status,
      stop_reason: result.stop_reason,
      error_code: result.error?.code ?? null,
      state: result.state,
      event_types: types,
      seqs_ok: seqs.every((seq, index) => seq === index + 1),
    });
  }
  return outcomes;
}
