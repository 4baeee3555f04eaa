/** TEA's agent.dispatch / agent.parallel / agent.sequential (settings.agents personas), against the mock server and the scripted model. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadError, runYaml } from '../engine/helpers.js';
import { startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.js';

let server: MockOpenAI;
beforeAll(async () => {
  server = await startMockOpenAI();
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
  server.setFault();
});

const settings = () => `
settings:
  llm: { api_base: "${server.url}", model: base-model, max_retries: 0 }
  agents:
    researcher: { system_prompt: "You gather facts.", temperature: 0.2 }
    writer: { model: writer-model, system_prompt: "You write summaries.", max_tokens: 50 }
    plain: {}
`;

describe('agent.dispatch', () => {
  it("sends [system, task] with the persona's model settings, inheriting settings.llm; events carry the agent", async () => {
    server.setReplies(['facts about tea']);
    const { result, events } = await runYaml(
      `${settings()}
nodes:
  - name: research
    action: agent.dispatch
    with: { agent: researcher, task: "Research {{ state.topic }}" }
    output: research
`,
      { topic: 'tea' },
    );
    expect(result.status, JSON.stringify(result.error)).toBe('completed');
    expect(result.state.research).toMatchObject({
      response: 'facts about tea',
      content: 'facts about tea',
      agent: 'researcher',
      success: true,
    });
    const body = server.chatRequests[0]!.body;
    expect(body.messages).toEqual([
      { role: 'system', content: 'You gather facts.' },
      { role: 'user', content: 'Research tea' },
    ]);
    expect(body).toMatchObject({ model: 'base-model', temperature: 0.2 });
    const request = events.find((event) => event.type === 'llm_request')!;
    expect(request).toMatchObject({ node: 'research', data: { label: 'agent:researcher' } });
  });

  it('an agent without a system prompt sends the task alone; the persona model and max_tokens win', async () => {
    server.setReplies(['ok']);
    await runYaml(`${settings()}
nodes:
  - { name: a, action: agent.dispatch, with: { agent: plain, task: hi } }
  - { name: b, action: agent.dispatch, with: { agent: writer, task: hi } }
`);
    expect(server.chatRequests[0]!.body.messages).toEqual([{ role: 'user', content: 'hi' }]);
    expect(server.chatRequests[1]!.body).toMatchObject({ model: 'writer-model', max_tokens: 50 });
  });

  it('an undeclared agent is a load error naming the declared ones', () => {
    const error = loadError(`${settings()}
nodes:
  - { name: a, action: agent.dispatch, with: { agent: critic, task: hi } }
`);
    expect(error.code).toBe('INVALID_PARAMS');
    expect(error.message).toContain(
      "agent 'critic' is not declared in settings.agents (available: researcher, writer, plain)",
    );
  });

  it('a model server failure ends the node with its typed error (not success: false)', async () => {
    server.setFault({ type: 'status', status: 503 });
    const { result } = await runYaml(`${settings()}
nodes:
  - { name: a, action: agent.dispatch, with: { agent: plain, task: hi } }
`);
    expect(result.error?.code).toBe('LLM_HTTP_503');
  });

  it('personas share the run budget', async () => {
    const { result } = await runYaml(`${settings().replace('settings:', 'settings:\n  limits: { max_llm_calls: 2 }')}
nodes:
  - { name: p, action: agent.parallel, with: { agents: [researcher, writer, plain], task: hi } }
`);
    expect(result.error?.code).toBe('BUDGET_EXCEEDED');
    // Two calls were sent; the node waited for them before failing (the next test would otherwise
    // receive their late requests and get the wrong replies).
    expect(server.chatRequests).toHaveLength(2);
  });
});

describe('agent.parallel', () => {
  const parallel = (aggregation: string, extra = '') => `
settings:
  llm: { provider: scripted, scripted: { rules: [{ when: "", reply: "unused" }] } }
  agents: { a1: { system_prompt: one }, a2: { system_prompt: two }, a3: { system_prompt: three } }
nodes:
  - name: classify
    action: agent.parallel
    with: { agents: [a1, a2, a3], task: "Classify {{ state.text }}", aggregation: ${aggregation}${extra} }
    output: out
`;
  // The scripted model answers by the system prompt's agent, through the mock server instead for determinism.
  const viaServer = (yaml: string) =>
    yaml.replace(
      'provider: scripted, scripted: { rules: [{ when: "", reply: "unused" }] }',
      `api_base: "${server.url}", max_retries: 0`,
    );

  it('vote: the majority answer, the votes, unanimous false; results in agents order', async () => {
    server.setReplies(['positive', 'negative', 'positive']);
    const { result } = await runYaml(viaServer(parallel('vote', ', max_concurrent: 1')), { text: 'great' });
    expect(result.state.out).toMatchObject({
      result: 'positive',
      votes: { positive: 2, negative: 1 },
      unanimous: false,
      total_votes: 3,
      aggregation: 'vote',
      success: true,
      agents_called: ['a1', 'a2', 'a3'],
    });
    expect(
      ((result.state.out as Record<string, unknown>).raw_results as Array<{ agent: string }>).map(
        (entry) => entry.agent,
      ),
    ).toEqual(['a1', 'a2', 'a3']);
  });

  it('collect and first', async () => {
    server.setReplies(['x', 'y', 'z']);
    const collected = await runYaml(viaServer(parallel('collect', ', max_concurrent: 1')), { text: 't' });
    expect(collected.result.state.out).toMatchObject({ responses: ['x', 'y', 'z'], count: 3, aggregation: 'collect' });
    server.setReplies(['x', 'y', 'z']);
    const firstOne = await runYaml(viaServer(parallel('first', ', max_concurrent: 1')), { text: 't' });
    expect(firstOne.result.state.out).toMatchObject({ result: 'x', agent: 'a1', aggregation: 'first' });
  });

  it('consensus asks again until the threshold is met or the rounds run out', async () => {
    server.setReplies(['a', 'b', 'c', 'd', 'd', 'e']);
    const reached = await runYaml(
      viaServer(parallel('consensus', ', max_concurrent: 1, consensus_threshold: 0.6, consensus_max_rounds: 3')),
      { text: 't' },
    );
    expect(reached.result.state.out).toMatchObject({
      result: 'd',
      consensus_reached: true,
      rounds: 2,
      aggregation: 'consensus',
    });
    expect((reached.result.state.out as { agreement: number }).agreement).toBeCloseTo(2 / 3);
    expect(server.chatRequests).toHaveLength(6);
    server.requests.length = 0;
    server.setReplies(['a', 'b', 'c', 'd', 'e', 'f']);
    const missed = await runYaml(
      viaServer(parallel('consensus', ', consensus_threshold: 0.9, consensus_max_rounds: 2')),
      { text: 't' },
    );
    expect(missed.result.state.out).toMatchObject({ result: null, consensus_reached: false, rounds: 2 });
    expect(server.chatRequests).toHaveLength(6);
  });
});

describe('agent.sequential', () => {
  it('chains agents: previous_response reaches the next task; transform applies; result and output_key', async () => {
    server.setReplies(['draft about tea', 'polished draft']);
    const { result } = await runYaml(
      `${settings()}
nodes:
  - name: pipeline
    action: agent.sequential
    with:
      agents: [researcher, writer]
      task: "Step {{ chain_index }} of {{ chain_length }}: {{ previous_response or state.topic }}"
      transform: "[{{ current_response }}]"
      output_key: article
`,
      { topic: 'tea' },
    );
    expect(result.status, JSON.stringify(result.error)).toBe('completed');
    expect(server.chatRequests.map((request) => request.body.messages.at(-1).content)).toEqual([
      'Step 0 of 2: tea',
      'Step 1 of 2: [draft about tea]',
    ]);
    expect(result.state).toMatchObject({
      result: '[polished draft]',
      article: '[polished draft]',
      success: true,
      chain: [
        { agent: 'researcher', response: 'draft about tea', success: true },
        { agent: 'writer', response: 'polished draft', success: true },
      ],
    });
  });

  it('tasks: one template per agent; without task, the first gets state.input and the next the previous answer', async () => {
    server.setReplies(['one', 'two']);
    await runYaml(
      `${settings()}
nodes:
  - { name: p, action: agent.sequential, with: { agents: [plain, plain], tasks: ["A {{ state.x }}", "B {{ state.previous_response }}"] } }
`,
      { x: 1 },
    );
    expect(server.chatRequests.map((request) => request.body.messages.at(-1).content)).toEqual(['A 1', 'B one']);
    server.requests.length = 0;
    server.setReplies(['first answer', 'second']);
    await runYaml(
      `${settings()}
nodes:
  - { name: p, action: agent.sequential, with: { agents: [plain, plain] } }
`,
      { input: 'the input' },
    );
    expect(server.chatRequests.map((request) => request.body.messages.at(-1).content)).toEqual([
      'the input',
      'first answer',
    ]);
  });

  it('tasks of the wrong length, and unknown keys, are load errors', () => {
    expect(
      loadError(`${settings()}
nodes:
  - { name: p, action: agent.sequential, with: { agents: [plain, writer], tasks: [a] } }
`).message,
    ).toContain('tasks has 1 entries for 2 agents');
    expect(
      loadError(`${settings()}
nodes:
  - { name: p, action: agent.sequential, with: { agents: [plain], mode: fast } }
`).code,
    ).toBe('INVALID_PARAMS');
  });
});

it('settings.agents is checked by the agent-file schema (closed persona keys, temperature 0–2)', () => {
  expect(
    loadError('settings:\n  agents: { a: { sytem_prompt: x } }\nnodes:\n  - { name: n, run: "return {}" }\n').message,
  ).toContain('sytem_prompt');
  expect(
    loadError('settings:\n  agents: { a: { temperature: 3 } }\nnodes:\n  - { name: n, run: "return {}" }\n').code,
  ).toBe('INVALID_AGENT');
});
