/**
 * Shared by the infrastructure-failure tests of the reasoning and reflection actions: one agent
 * whose node `think` runs the action against the mock OpenAI server over real HTTP, the faults
 * every action must turn into a failed node (server down, 404, 500 on every call, a connection
 * that breaks mid-answer), and a runner that collects events and the result.
 */
import { expect, it } from 'vitest';
import { runAgent } from '../../src/graph/run-agent.js';
import { loadAgent } from '../../src/load-agent-with-scripts.js';
import type { AgentEvent } from '../../src/core/events.js';
import type { RunResult } from '../../src/graph/run-types.js';
import { startMockOpenAI, type MockFault, type MockOpenAI } from '../support/mock-openai-server.js';

export interface InfrastructureCase {
  name: string;
  /** A fault on the live server; undefined means "nothing listens at the URL". */
  fault: MockFault | undefined;
  code: string;
  /** Retries allowed per call (the 500 case proves the error comes after them). */
  retries: number;
}

export const INFRASTRUCTURE_CASES: readonly InfrastructureCase[] = [
  { name: 'server down (closed port)', fault: undefined, code: 'LLM_UNAVAILABLE', retries: 0 },
  {
    name: 'HTTP 404 (missing model)',
    fault: { type: 'status', status: 404, body: '{"error":{"message":"model \\"m\\" not found"}}' },
    code: 'LLM_HTTP_404',
    retries: 0,
  },
  { name: 'HTTP 500 on every call', fault: { type: 'status', status: 500 }, code: 'LLM_HTTP_500', retries: 1 },
  {
    name: 'a connection that breaks mid-answer',
    fault: { type: 'reset', afterChunks: 2 },
    code: 'LLM_BAD_RESPONSE',
    retries: 0,
  },
];

export interface NodeSpec {
  uses: string;
  with: Record<string, unknown>;
  onError?: 'graceful' | 'raise';
}

/** An agent: `think` (the action under test, output `out`), then `after` (proves the run went on). */
export function agentText(apiBase: string, node: NodeSpec, retries = 0, extraSettings = ''): string {
  return [
    'name: infrastructure',
    'settings:',
    `  llm: { api_base: "${apiBase}", model: m, max_retries: ${retries}, timeout: 10 }`,
    extraSettings,
    'nodes:',
    '  - name: think',
    `    uses: ${node.uses}`,
    `    with: ${JSON.stringify(node.with)}`,
    '    output: out',
    ...(node.onError !== undefined ? [`    on_error: ${node.onError}`] : []),
    '  - name: after',
    '    run: return { after = true }',
    '',
  ]
    .filter((line) => line !== '')
    .join('\n');
}

export async function runText(text: string): Promise<{ result: RunResult; events: AgentEvent[] }> {
  const started = runAgent(loadAgent(text, { file: 'infrastructure.yaml' }), {}, {});
  const events: AgentEvent[] = [];
  for await (const event of started) events.push(event);
  return { result: await started.result, events };
}

/** A base URL where nothing listens: a mock server's address after it closed. */
export async function closedUrl(): Promise<string> {
  const closed = await startMockOpenAI();
  const url = closed.url;
  await closed.close();
  return url;
}

/** Runs `node` under `testCase` against `server` (or a closed port). */
export async function runCase(
  server: MockOpenAI,
  testCase: InfrastructureCase,
  node: NodeSpec,
): Promise<{ result: RunResult; events: AgentEvent[] }> {
  server.setFault(testCase.fault);
  const url = testCase.fault === undefined ? await closedUrl() : server.url;
  try {
    return await runText(agentText(url, node, testCase.retries));
  } finally {
    server.setFault();
  }
}

/**
 * Defines, for one node, a test per infrastructure case (the run fails with the code at node
 * `think`, the next node never runs, the server saw the call and its retries, `check` finds no
 * swallowed trace of it) and one for `on_error: graceful` (the error is recorded and the run goes on).
 */
export function defineInfrastructureTests(
  label: string,
  node: NodeSpec,
  server: () => MockOpenAI,
  check: (outcome: { result: RunResult; events: AgentEvent[] }) => void,
): void {
  for (const testCase of INFRASTRUCTURE_CASES) {
    it(`${label}: ${testCase.name} → failed run, ${testCase.code} at node think`, async () => {
      const outcome = await runCase(server(), testCase, node);
      expect(outcome.result.status).toBe('failed');
      expect(outcome.result.error).toMatchObject({ code: testCase.code, node: 'think' });
      expect(outcome.result.state.after).toBeUndefined();
      check(outcome);
      if (testCase.fault !== undefined) expect(server().chatRequests).toHaveLength(testCase.retries + 1);
    });
  }

  it(`${label}: on_error graceful records the error and the run goes on`, async () => {
    const { result } = await runText(agentText(await closedUrl(), { ...node, onError: 'graceful' }));
    expect(result.status).toBe('completed');
    expect(result.state.__error__).toMatchObject({ code: 'LLM_UNAVAILABLE', node: 'think' });
    expect(result.state.after).toBe(true);
  });
}
