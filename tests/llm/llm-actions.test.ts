import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAgent } from '../../src/graph/run-agent.js';
import { loadAgent } from '../../src/load-agent-with-scripts.js';
import { createActionRegistry } from '../../src/builtins.js';
import type { ActionDefinition } from '../../src/core/action.js';
import type { AgentEvent } from '../../src/core/events.js';
import type { RunOptions } from '../../src/graph/run-types.js';
import { startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.js';
import { calcAddAction } from '../support/calc-add-action.js';

let server: MockOpenAI;
beforeAll(async () => {
  server = await startMockOpenAI();
});
afterAll(() => server.close());

async function run(yaml: string, input: Record<string, unknown> = {}, options: RunOptions = {}) {
  const agent = loadAgent(yaml, { file: 'agent.yaml', registry: createActionRegistry([calcAddAction]) });
  const started = runAgent(agent, input, options);
  const events: AgentEvent[] = [];
  for await (const event of started) events.push(event);
  return { events, result: await started.result };
}

describe('llm.call / llm.stream / llm.tools in agents', () => {
  it('llm.call uses settings.llm (scripted) and returns {content, usage, model, finish_reason}', async () => {
    const { result, events } = await run(
      `
name: greet
settings:
  llm: { provider: scripted, scripted: ["Hello, {{ not a template }}", "second"] }
nodes:
  - name: ask
    uses: llm.call
    with: { prompt: "Say hi to {{ state.who }}" }
    output: reply
  - name: again
    action: llm.call
    with: { prompt: "again" }
`,
      { who: 'Ada' },
    );
    expect(result.status).toBe('completed');
    expect(result.state.reply).toMatchObject({
      content: 'Hello, {{ not a template }}',
      model: 'scripted',
      finish_reason: 'stop',
    });
    expect(result.state.content).toBe('second');
    const requests = events.filter((event) => event.type === 'llm_request');
    expect(requests).toHaveLength(2);
    expect(requests[0]!.node).toBe('ask');
  });

  it("llm.call with tools returns the model's tool calls (an empty list when it answers in text)", async () => {
    const { result } = await run(`
name: native-tools
settings:
  llm: { provider: scripted, scripted: [{ tool_calls: [{ name: calc_add, arguments: { a: 1, b: 2 } }] }, "plain"] }
nodes:
  - { name: a, uses: llm.call, with: { prompt: add, tools: [{ type: function, function: { name: calc_add } }] }, output: first }
  - { name: b, uses: llm.call, with: { prompt: add, tools: [{ type: function, function: { name: calc_add } }] }, output: second }
`);
    expect(result.state.first).toMatchObject({
      finish_reason: 'tool_calls',
      tool_calls: [{ function: { name: 'calc_add', arguments: '{"a":1,"b":2}' } }],
    });
    expect(result.state.second).toMatchObject({ content: 'plain', tool_calls: [] });
  });

  it('llm.stream emits answer_chunk events while the mock streams', async () => {
    server.setReplies(['Tea is a drink made from leaves.']);
    const { result, events } = await run(`
name: streamer
settings: { llm: { api_base: "${server.url}", model: mock-model } }
nodes:
  - name: s
    uses: llm.stream
    with: { prompt: "About tea" }
    output: answer
`);
    expect(result.status).toBe('completed');
    expect((result.state.answer as { content: string }).content).toBe('Tea is a drink made from leaves.');
    const chunks = events.filter((event) => event.type === 'answer_chunk');
    expect(chunks.length).toBeGreaterThan(2);
    expect(chunks.map((event) => event.data.content).join('')).toBe('Tea is a drink made from leaves.');
  });

  it("a reasoning model's <think> stays out of the answer, the chunks and state, and is kept as reasoning in the result and the trace", async () => {
    server.setReplies(['<think>\nThey want tea facts.\n</think>\n\nTea is a drink made from leaves.']);
    const { result, events } = await run(`
name: thinker
settings: { llm: { api_base: "${server.url}", model: mock-model }, trace: { capture_payloads: true } }
nodes:
  - { name: s, uses: llm.stream, with: { prompt: "About tea" }, output: streamed }
  - { name: c, uses: llm.call, with: { prompt: "About tea" }, output: whole }
`);
    expect(result.status).toBe('completed');
    for (const key of ['streamed', 'whole']) {
      expect(result.state[key]).toMatchObject({
        content: 'Tea is a drink made from leaves.',
        reasoning: 'They want tea facts.',
      });
    }
    expect(
      events
        .filter((event) => event.type === 'answer_chunk')
        .map((event) => event.data.content)
        .join(''),
    ).toBe('Tea is a drink made from leaves.');
    const answered = events.filter((event) => event.type === 'llm_response');
    expect(answered.map((event) => event.data.reasoning_chars)).toEqual([
      'They want tea facts.'.length,
      'They want tea facts.'.length,
    ]);
    expect(answered[0]!.data.response).toMatchObject({
      content: 'Tea is a drink made from leaves.',
      reasoning: 'They want tea facts.',
    });
  });

  it('overrides from the host win over the agent endpoint', async () => {
    server.setReplies(['from the mock']);
    const { result } = await run(
      `
name: o
settings: { llm: { provider: scripted, scripted: ["from the script"] } }
nodes:
  - { name: a, uses: llm.call, with: { prompt: hi }, output: r }
`,
      {},
      { llm: { overrides: { api_base: server.url, model: 'override-model' } } },
    );
    expect((result.state.r as { content: string }).content).toBe('from the mock');
    expect(server.chatRequests.at(-1)!.body.model).toBe('override-model');
  });

  it('llm.tools runs registered actions the model asks for and feeds results back', async () => {
    const { result, events } = await run(`
name: tools
settings:
  llm:
    provider: scripted
    scripted:
      - tool_calls: [{ name: calc_add, arguments: { a: 2, b: 3 } }, { name: nope, arguments: {} }]
      - "The sum is 5."
nodes:
  - name: t
    uses: llm.tools
    with: { prompt: "What is 2 + 3?", tools: [calc.add] }
    output: out
`);
    expect(result.status).toBe('completed');
    const out = result.state.out as Record<string, any>;
    expect(out.content).toBe('The sum is 5.');
    expect(out.rounds).toBe(2);
    expect(out.tool_results[0]).toMatchObject({ name: 'calc_add', result: { sum: 5 } });
    expect(out.tool_results[1].result.error).toContain('Unknown tool');
    expect(events.filter((event) => event.type === 'tool_start')).toHaveLength(2);
    // The same tool_result fields as reason.react: observation (the text fed back) and status.
    const results = events.filter((event) => event.type === 'tool_result').map((event) => event.data);
    expect(results.map((data) => [data.tool, data.status, data.round])).toEqual([
      ['calc_add', 'ok', 1],
      ['nope', 'unknown', 1],
    ]);
    expect(JSON.parse(results[0]!.observation!)).toEqual({ sum: 5 });
  });

  it('llm.tools drops __proto__ / constructor keys from model-written arguments', async () => {
    const seen: string[][] = [];
    const spy: ActionDefinition = {
      name: 'spy.keys',
      description: 'records argument keys',
      run: (params: Record<string, unknown>) => (seen.push(Object.keys(params)), { ok: true }),
    };
    const agent = loadAgent(
      `
name: proto
settings:
  llm:
    provider: scripted
    scripted:
      - tool_calls: [{ name: spy_keys, arguments: '{"a": 1, "__proto__": {"polluted": true}, "constructor": {"x": 1}}' }]
      - done
nodes:
  - { name: t, uses: llm.tools, with: { prompt: go, tools: [spy.keys] }, output: out }
`,
      { registry: createActionRegistry([spy]) },
    );
    const started = runAgent(agent, {});
    for await (const _event of started) void _event;
    expect((await started.result).status).toBe('completed');
    expect(seen).toEqual([['a']]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('llm.tools stops at max_tool_rounds with a warning', async () => {
    const call = '{ tool_calls: [{ name: calc_add, arguments: { a: 1, b: 1 } }] }';
    const { result } = await run(`
name: rounds
settings: { llm: { provider: scripted, scripted: [${call}, ${call}, ${call}] } }
nodes:
  - { name: t, uses: llm.tools, with: { prompt: loop, tools: [calc.add], max_tool_rounds: 2 }, output: out }
`);
    expect(result.state.out).toMatchObject({ content: '', warning: 'Max tool rounds (2) reached', rounds: 2 });
  });

  it('llm.tools refuses unknown actions and bad rounds at load', () => {
    expect(() =>
      loadAgent(`
name: bad
nodes:
  - { name: t, uses: llm.tools, with: { prompt: x, tools: [no.such] } }
`),
    ).toThrow(expect.objectContaining({ code: 'UNKNOWN_ACTION' }));
    expect(() =>
      loadAgent(
        `
name: bad
nodes:
  - { name: t, uses: llm.tools, with: { prompt: x, tools: [calc.add], max_tool_rounds: 0 } }
`,
        { registry: createActionRegistry([calcAddAction]) },
      ),
    ).toThrow(expect.objectContaining({ code: 'INVALID_PARAMS' }));
  });

  it('every call counts in max_llm_calls', async () => {
    const { result } = await run(`
name: budget
settings:
  limits: { max_llm_calls: 1 }
  llm: { provider: scripted, scripted: [a, b] }
nodes:
  - { name: one, uses: llm.call, with: { prompt: x } }
  - { name: two, uses: llm.call, with: { prompt: y } }
`);
    expect(result.status).toBe('failed');
    expect(result.error!.code).toBe('BUDGET_EXCEEDED');
    expect(result.stop_reason).toBe('max_llm_calls');
  });

  it('a model failure fails the node with its typed code, or is graceful with on_error', async () => {
    server.setFault({ type: 'status', status: 400 });
    try {
      const failed = await run(`
name: f
settings: { llm: { api_base: "${server.url}", max_retries: 0 } }
nodes:
  - { name: a, uses: llm.call, with: { prompt: x } }
`);
      expect(failed.result.error).toMatchObject({ code: 'LLM_HTTP_400', node: 'a' });
      const graceful = await run(`
name: g
settings: { llm: { api_base: "${server.url}", max_retries: 0 } }
nodes:
  - { name: a, uses: llm.call, with: { prompt: x }, on_error: graceful }
`);
      expect(graceful.result.status).toBe('completed');
      expect(graceful.result.state.__error__).toMatchObject({ code: 'LLM_HTTP_400' });
    } finally {
      server.setFault();
    }
  });
});
