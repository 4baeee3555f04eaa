/**
 * The same agents over every host's seams (issue 13): agent files as sub-runs and file.read /
 * file.write, run by the engine bundled into each host (Node, workerd with R2, Chromium with OPFS,
 * Deno with its file system). The agent files are first written into the host's own FileStore and
 * read back through it by `fileStoreAgentSource`, so both seams are that host's. Each scenario
 * reports what must come out identical everywhere: status, error code, final state, event types,
 * the sub-run files of nested events. Host-agnostic: no Node API (it is bundled into a page).
 */
import type { FileStore } from '../../src/core/file-store.js';
import { fileStoreAgentSource } from '../../src/graph/agent-files.js';
import { runAgent } from '../../src/graph/run-agent.js';
import { loadAgent } from '../../src/load-agent-with-scripts.js';

/** Agent texts the scenarios need besides the examples (given by the test, which reads examples/). */
export const EXTRA_AGENTS: Record<string, string> = {
  'loops/ping.yaml':
    'name: ping\nnodes:\n  - { name: p, uses: agent.dispatch, with: { agent: { file: pong.yaml }, task: x } }\n',
  'loops/pong.yaml':
    'name: pong\nnodes:\n  - { name: q, uses: agent.dispatch, with: { agent: { file: ping.yaml }, task: x } }\n',
  'read-path.yaml':
    'name: read-path\nnodes:\n  - { name: r, uses: file.read, with: { path: "{{ state.path }}", max_bytes: 4096 }, output: got }\n',
  'write-path.yaml':
    'name: write-path\nnodes:\n  - { name: w, uses: file.write, with: { path: "{{ state.path }}", content: "{{ state.content }}" }, output: put }\n',
};

export const HOSTILE_PATHS = [
  '../tea-file-notes.yaml',
  'notes/../../x.txt',
  '/etc/passwd',
  'C:/x.txt',
  'a\\b.txt',
  '%2e%2e/x.txt',
  'file:///etc/passwd',
  'a\u0000b.txt',
];

export interface ScenarioOutcome {
  name: string;
  status: string;
  error: string | null;
  state: Record<string, unknown>;
  types: string[];
  sub_runs: string[];
}

async function run(
  files: FileStore,
  agentFile: string,
  input: Record<string, unknown>,
  name = agentFile,
): Promise<ScenarioOutcome> {
  const bytes = await files.read(agentFile, 1024 * 1024);
  const agent = loadAgent(new TextDecoder().decode(bytes!), { file: agentFile });
  const handle = runAgent(agent, input, { files, agentFiles: fileStoreAgentSource(files), agentFile });
  const types: string[] = [];
  const subRuns: string[] = [];
  for await (const event of handle) {
    types.push(event.type);
    if (event.sub_run !== undefined) subRuns.push(event.sub_run.map((frame) => frame.file).join('>'));
  }
  const result = await handle.result;
  return {
    name,
    status: result.status,
    error: result.error?.code ?? null,
    state: result.state,
    types,
    sub_runs: [...new Set(subRuns)],
  };
}

/** Seeds `agents` into the store, runs every scenario, and returns their outcomes in order. */
export async function runSeamScenarios(files: FileStore, agents: Record<string, string>): Promise<ScenarioOutcome[]> {
  for (const [file, text] of Object.entries({ ...agents, ...EXTRA_AGENTS }))
    await files.write(file, new TextEncoder().encode(text));
  const outcomes: ScenarioOutcome[] = [];
  outcomes.push(await run(files, 'tea-agent-files.yaml', { ticket: 'charged twice', customer: 'ada' }));
  const notes = await run(files, 'tea-file-notes.yaml', { topic: 'sencha' });
  const summary = await files.read('summaries/sencha.txt', 1000);
  outcomes.push({
    ...notes,
    state: { ...notes.state, summary_on_store: summary === undefined ? null : new TextDecoder().decode(summary) },
  });
  outcomes.push(await run(files, 'loops/ping.yaml', {}, 'cycle'));
  outcomes.push(await run(files, 'read-path.yaml', { path: 'nope/missing.txt' }, 'missing file'));
  outcomes.push(await run(files, 'write-path.yaml', { path: 'big.txt', content: 'x'.repeat(5000) }, 'write big'));
  outcomes.push(await run(files, 'read-path.yaml', { path: 'big.txt' }, 'read over max_bytes'));
  for (const path of HOSTILE_PATHS) {
    outcomes.push(await run(files, 'read-path.yaml', { path }, `read ${JSON.stringify(path)}`));
    outcomes.push(await run(files, 'write-path.yaml', { path, content: 'nope' }, `write ${JSON.stringify(path)}`));
  }
  return outcomes;
}
