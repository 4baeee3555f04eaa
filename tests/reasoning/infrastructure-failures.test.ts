/**
 * Issue 10 point 1 for the reasoning actions, over real HTTP against the mock OpenAI server: a
 * model server that is down, answers 404 or 500, or breaks the connection mid-answer ends the node
 * with its typed LLM_* error (the run fails, naming the node), never a `{success: false}` result or
 * a ReAct observation; `on_error: graceful` records it and goes on; `on_error: retry` runs the node
 * again. A content failure (an answer that does not parse) stays a result.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.js';
import { agentText, closedUrl, defineInfrastructureTests, runText, type NodeSpec } from './infrastructure-harness.js';

let server: MockOpenAI;
beforeAll(async () => {
  server = await startMockOpenAI({ chunkSize: 3 });
});
afterAll(() => server.close());
beforeEach(() => {
  server.setFault();
  server.setReplies(['{"thinking": "t", "answer": 4}']);
  server.requests.length = 0;
});

const NODES: Record<string, NodeSpec> = {
  'reason.cot': { uses: 'reason.cot', with: { problem: 'What is 2+2?' } },
  'reason.react': { uses: 'reason.react', with: { goal: 'Add 2 and 2', tools: ['math.calculate'], max_steps: 3 } },
  'reason.react (auto tool mode)': {
    uses: 'reason.react',
    with: { goal: 'Add 2 and 2', tools: ['math.calculate'], max_steps: 3, tool_mode: 'auto' },
  },
  'reason.self_correct': { uses: 'reason.self_correct', with: { task: 'Write a haiku', improvement_rounds: 1 } },
  'reason.decompose': { uses: 'reason.decompose', with: { problem: 'Plan a trip' } },
};

describe('infrastructure failures fail the node (reasoning actions, real HTTP)', () => {
  for (const [label, node] of Object.entries(NODES)) {
    defineInfrastructureTests(
      label,
      node,
      () => server,
      ({ result, events }) => {
        expect(result.state.out).toBeUndefined();
        // The failed model call is visible, and nothing was "answered" or observed.
        expect(events.some((event) => event.type === 'llm_response' && event.data.error !== undefined)).toBe(true);
        expect(events.some((event) => event.type === 'tool_result')).toBe(false);
      },
    );
  }

  it('a streamed reason.cot whose stream is cut mid-way fails the node with LLM_BAD_RESPONSE', async () => {
    server.setReplies(['{"thinking": "a long line of thought", "answer": 4}']);
    server.setFault({ type: 'cut', afterChunks: 3 });
    const { result, events } = await runText(
      agentText(server.url, { uses: 'reason.cot', with: { problem: 'p', stream: true } }),
    );
    expect(result.error).toMatchObject({ code: 'LLM_BAD_RESPONSE', node: 'think' });
    expect(events.some((event) => event.type === 'answer_chunk')).toBe(true);
  });

  it('a streamed reason.react whose stream is reset fails the node with LLM_BAD_RESPONSE', async () => {
    server.setReplies([
      JSON.stringify({ thought: 'add', action: 'math.calculate', action_input: { expression: '2+2' } }),
    ]);
    server.setFault({ type: 'reset', afterChunks: 3 });
    const { result } = await runText(
      agentText(server.url, { uses: 'reason.react', with: { goal: 'g', tools: ['math.calculate'], stream: true } }),
    );
    expect(result.error).toMatchObject({ code: 'LLM_BAD_RESPONSE', node: 'think' });
  });

  it('on_error retry runs the node again after a 500, and succeeds', async () => {
    server.setFault({ type: 'status', status: 500, times: 1 });
    const text = agentText(server.url, { uses: 'reason.cot', with: { problem: 'p' } }).replace(
      '    output: out',
      '    output: out\n    on_error: { mode: retry, max_retries: 2, backoff_ms: 1 }',
    );
    const { result, events } = await runText(text);
    expect(result.status).toBe('completed');
    expect(result.state.out).toMatchObject({ answer: 4 });
    expect(events.filter((event) => event.type === 'node_start' && event.node === 'think')).toHaveLength(2);
  });

  it('a ReAct tool whose own model call fails ends the node instead of becoming an observation', async () => {
    const down = await closedUrl();
    server.setReplies([
      JSON.stringify({ thought: 'ask', action: 'llm.call', action_input: { prompt: 'inner', api_base: down } }),
      JSON.stringify({ thought: 'done', action: 'final_answer', action_input: { answer: 'x' } }),
    ]);
    const { result, events } = await runText(
      agentText(server.url, { uses: 'reason.react', with: { goal: 'g', tools: ['llm.call'] } }),
    );
    expect(result.error).toMatchObject({ code: 'LLM_UNAVAILABLE', node: 'think' });
    expect(server.chatRequests).toHaveLength(1);
    expect(events.some((event) => event.type === 'tool_result')).toBe(false);
  });
});

describe('llm.tools: a tool whose own model call fails ends the node (real HTTP)', () => {
  it('the failure is not fed back to the model as a tool result', async () => {
    const down = await closedUrl();
    server.setReplies([
      { tool_calls: [{ name: 'llm_call', arguments: { prompt: 'inner', api_base: down } }] },
      'never reached',
    ]);
    const { result, events } = await runText(
      agentText(server.url, { uses: 'llm.tools', with: { prompt: 'go', tools: ['llm.call'] } }),
    );
    expect(result.error).toMatchObject({ code: 'LLM_UNAVAILABLE', node: 'think' });
    expect(server.chatRequests).toHaveLength(1);
    expect(events.some((event) => event.type === 'tool_result')).toBe(false);
  });
});

describe('content failures stay results (reasoning actions, real HTTP)', () => {
  it('reason.cot: an answer that does not parse is {success: false}; the run completes', async () => {
    server.setReplies(['I cannot structure this at all']);
    const { result } = await runText(agentText(server.url, NODES['reason.cot']!));
    expect(result.status).toBe('completed');
    expect(result.state.out).toMatchObject({ success: false, error: expect.stringContaining('Could not parse JSON') });
    expect(result.state.after).toBe(true);
  });

  it('reason.react: an unparseable step is an observation, and the loop goes on to its answer', async () => {
    server.setReplies([
      'no json here',
      JSON.stringify({ thought: 'done', action: 'final_answer', action_input: { answer: 4 } }),
    ]);
    const { result } = await runText(agentText(server.url, NODES['reason.react']!));
    expect(result.status).toBe('completed');
    const out = result.state.out as { final_answer: unknown; steps: Array<{ type: string }> };
    expect(out.final_answer).toBe(4);
    expect(out.steps[0]!.type).toBe('parse_error');
  });

  it('reason.react native: a tool call whose arguments are not JSON is a parse_error step; the loop goes on', async () => {
    server.setReplies([
      { tool_calls: [{ name: 'math_calculate', arguments: '{"expression": "2+' }] },
      { tool_calls: [{ name: 'math_calculate', arguments: { expression: '2+2' } }] },
      'It is 4.',
    ]);
    const { result } = await runText(
      agentText(server.url, {
        uses: 'reason.react',
        with: { goal: 'Add', tools: ['math.calculate'], tool_mode: 'native' },
      }),
    );
    expect(result.status, JSON.stringify(result.error)).toBe('completed');
    const out = result.state.out as { final_answer: unknown; steps: Array<{ type: string; observation: string }> };
    expect(out.steps[0]!.type).toBe('parse_error');
    expect(out.steps[0]!.observation).toContain('could not be read');
    expect(out.steps[1]!.observation).toContain('4');
    expect(out.final_answer).toBe('It is 4.');
  });

  it('reason.react auto: an unreadable tool call falls back to JSON mode', async () => {
    server.setReplies([
      { tool_calls: [{ name: 'math_calculate', arguments: '[1, 2]' }] },
      JSON.stringify({ thought: 'done', action: 'final_answer', action_input: { answer: 4 } }),
    ]);
    const { result } = await runText(
      agentText(server.url, {
        uses: 'reason.react',
        with: { goal: 'Add', tools: ['math.calculate'], tool_mode: 'auto' },
      }),
    );
    expect(result.status, JSON.stringify(result.error)).toBe('completed');
    expect(result.state.out).toMatchObject({ final_answer: 4, tool_mode: 'json' });
  });

  it('reason.decompose: a plan that does not parse is {success: false}', async () => {
    server.setReplies(['just prose, no plan']);
    const { result } = await runText(agentText(server.url, NODES['reason.decompose']!));
    expect(result.status).toBe('completed');
    expect(result.state.out).toMatchObject({ success: false });
  });
});
