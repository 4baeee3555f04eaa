/**
 * Tool calls a model wrote as text, through the engine and the HTTP client: a server that did not
 * parse them (vLLM without --enable-auto-tool-choice, a template without tool support) answers with
 * the markup as content. llm.tools and reason.react (native mode) run them; an unreadable call fails
 * the node with the server's switch, instead of being returned as the answer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAgent } from '../../src/graph/run-agent.js';
import { loadAgent } from '../../src/load-agent-with-scripts.js';
import { createActionRegistry } from '../../src/builtins.js';
import type { AgentEvent } from '../../src/core/events.js';
import { startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.js';
import { calcAddAction } from '../support/calc-add-action.js';

let server: MockOpenAI;
beforeAll(async () => {
  server = await startMockOpenAI({ chunkSize: 3, byteSplit: 5 });
});
afterAll(() => server.close());

async function runTools(replies: string[], stream: boolean, provider = 'vllm') {
  server.setReplies(replies);
  server.requests.length = 0;
  const agent = loadAgent(
    `
name: text-tools
settings:
  llm: { provider: ${provider}, api_base: "${server.url}", model: m, max_retries: 0 }
nodes:
  - { name: t, uses: llm.tools, with: { prompt: "What is 2 + 3?", tools: [calc.add], stream: ${stream} }, output: out }
`,
    { file: 'agent.yaml', registry: createActionRegistry([calcAddAction]) },
  );
  const started = runAgent(agent, {});
  const events: AgentEvent[] = [];
  for await (const event of started) events.push(event);
  return { events, result: await started.result };
}

describe.each([false, true])('text-form tool calls (stream: %s)', (stream) => {
  it('a Hermes <tool_call> reply runs the tool and the next answer is the result', async () => {
    const { result, events } = await runTools(
      ['<tool_call>\n{"name": "calc_add", "arguments": {"a": 2, "b": 3}}\n</tool_call>', 'The sum is 5.'],
      stream,
    );
    expect(result.status).toBe('completed');
    const out = result.state.out as Record<string, any>;
    expect(out.content).toBe('The sum is 5.');
    expect(out.tool_results).toEqual([{ tool_call_id: 'text_call_0_0', name: 'calc_add', result: { sum: 5 } }]);
    const answered = events
      .filter((event) => event.type === 'llm_response')
      .map((event) => event.data as Record<string, unknown>);
    expect(answered[0]).toMatchObject({
      tool_call_count: 1,
      tool_calls_from_text: 'hermes',
      finish_reason: 'tool_calls',
    });
    // The second request carries the call and its result back to the server.
    const second = server.chatRequests[1]!.body;
    expect(second.messages.at(-2)).toMatchObject({
      role: 'assistant',
      tool_calls: [{ id: 'text_call_0_0', function: { name: 'calc_add' } }],
    });
    expect(second.messages.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'text_call_0_0', content: '{"sum":5}' });
  });

  it('Mistral and Llama forms run too, with ids that never repeat across rounds', async () => {
    const { result } = await runTools(
      [
        '[TOOL_CALLS]calc_add[ARGS]{"a": 1, "b": 1}',
        '<|python_tag|>{"name": "calc_add", "parameters": {"a": 2, "b": 2}}',
        'done',
      ],
      stream,
    );
    expect(result.status).toBe('completed');
    const out = result.state.out as Record<string, any>;
    expect(out.tool_results.map((item: any) => [item.tool_call_id, item.result.sum])).toEqual([
      ['text_call_0_0', 2],
      ['text_call_1_0', 4],
    ]);
  });

  it("a call in a format no reader knows fails the node with the server's switch, not exit 0 with markup", async () => {
    const { result } = await runTools(['[calc_add(a=2, b=3)]'], stream);
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('LLM_BAD_RESPONSE');
    expect(result.error?.message).toContain('--enable-auto-tool-choice');
    expect(server.chatRequests).toHaveLength(1);
  });

  it('a plain answer that names a tool is the answer', async () => {
    const { result } = await runTools(['I could use calc_add(a, b), but 2 + 3 = 5.'], stream);
    expect(result.status).toBe('completed');
    expect((result.state.out as Record<string, unknown>).content).toBe('I could use calc_add(a, b), but 2 + 3 = 5.');
  });
});

describe('text-form tool calls without tools offered', () => {
  it('llm.call without tools returns markup as text (nothing to run)', async () => {
    server.setReplies(['<tool_call>{"name": "calc_add", "arguments": {}}</tool_call>']);
    const agent = loadAgent(
      `
name: no-tools
settings:
  llm: { provider: vllm, api_base: "${server.url}", model: m }
nodes:
  - { name: t, uses: llm.call, with: { prompt: hi }, output: out }
`,
      { file: 'agent.yaml' },
    );
    const result = await runAgent(agent, {}).result;
    expect(result.status).toBe('completed');
    expect((result.state.out as Record<string, unknown>).content).toContain('<tool_call>');
  });
});
