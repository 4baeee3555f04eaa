/**
 * reason.react through the built CLI (`bin/tea-edge.js`, built by `npm test`) against a mock
 * OpenAI-compatible server: native tool calls, JSON mode, --stream NDJSON with the reasoning
 * events, and a tier-3 pause (exit 3) resumed with --approve and --deny.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli as cli } from '../support/run-cli.js';

function agentFile(text: string): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'tea-react-')), 'agent.yaml');
  writeFileSync(file, text);
  return file;
}

type Message = { role: string; content: string | null };

/** Answers by looking at the conversation: the mock model is stateless, like a real server. */
function reply(request: { messages: Message[]; tools?: unknown[] }): Record<string, unknown> {
  const last = request.messages.at(-1)!;
  const goal = request.messages.find((message) => message.role === 'user')?.content ?? '';
  if (request.tools !== undefined) {
    if (last.role === 'tool')
      return { role: 'assistant', content: `The result is ${JSON.parse(last.content ?? '{}').result}.` };
    return {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'call-a', type: 'function', function: { name: 'math_calculate', arguments: '{"expression": "21 * 2"}' } },
      ],
    };
  }
  if (goal.includes('save')) {
    if (String(last.content).startsWith('Observation:'))
      return {
        role: 'assistant',
        content: JSON.stringify({ thought: 'done', action: 'final_answer', action_input: { answer: last.content } }),
      };
    return {
      role: 'assistant',
      content: '{"thought": "save it", "action": "memory.store", "action_input": {"key": "k", "value": 1}}',
    };
  }
  if (String(last.content).startsWith('Observation:'))
    return {
      role: 'assistant',
      content: 'Sure! ```json\n{"thought": "done", "action": "final_answer", "action_input": {"answer": 42}}\n```',
    };
  return {
    role: 'assistant',
    content: "{'thought': 'multiply', 'action': 'math.calculate', 'action_input': {'expression': '6 * 7'},}",
  };
}

describe('reason.react through the CLI and an OpenAI-compatible server', () => {
  let server: Server;
  let baseUrl = '';
  beforeAll(async () => {
    server = createServer(async (request, response) => {
      let body = '';
      for await (const chunk of request) body += chunk;
      const parsed = JSON.parse(body);
      const message = reply(parsed);
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          id: 'x',
          object: 'chat.completion',
          model: parsed.model,
          choices: [{ index: 0, message, finish_reason: message['tool_calls'] ? 'tool_calls' : 'stop' }],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        }),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const agent = (goal: string, mode: string, tools: string) => `name: cli-react
settings:
  llm: { model: mock-model }
nodes:
  - name: act
    uses: reason.react
    with:
      goal: ${goal}
      tool_mode: ${mode}
      tools: ${tools}
    output: react
`;

  it('native tool calls (auto mode): the tool runs, the plain reply is the answer', async () => {
    const result = await cli([
      'run',
      agentFile(agent('what is 21 times 2', 'auto', '[math.calculate]')),
      '--llm-base-url',
      baseUrl,
    ]);
    expect(result.code, result.stderr).toBe(0);
    const react = JSON.parse(result.stdout).react;
    expect(react).toMatchObject({
      final_answer: 'The result is 42.',
      tool_mode: 'native',
      stop_reason: 'final_answer',
    });
    expect(react.steps[0]).toMatchObject({ action: 'math.calculate', observation: '{"result":42}', call_id: 'call-a' });
  });

  it('JSON mode with a sloppy small-model reply, streamed as NDJSON with every reasoning event', async () => {
    const result = await cli([
      'run',
      agentFile(agent('what is 6 times 7', 'json', '[math.calculate]')),
      '--llm-base-url',
      baseUrl,
      '--stream',
    ]);
    expect(result.code, result.stderr).toBe(0);
    const events = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const types = events.map((event) => event.type);
    for (const type of ['thinking', 'tool_start', 'tool_result', 'answer_chunk', 'answer', 'done'])
      expect(types).toContain(type);
    for (const event of events) expect(event.ts).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const done = events.at(-1);
    expect(done.data.state.react.final_answer).toBe(42);
    expect(JSON.stringify(done.data.state.react.reasoning_trace)).toContain('react_complete');
  });

  it('tier 3 pauses (exit 3); --approve runs the tool; a second resume is refused', async () => {
    const traceDir = mkdtempSync(path.join(tmpdir(), 'tea-react-traces-'));
    const file = agentFile(agent('save the value', 'json', '[{name: memory.store, tier: 3}]'));
    const paused = await cli(['run', file, '--llm-base-url', baseUrl, '--trace-dir', traceDir]);
    expect(paused.code, paused.stderr).toBe(3);
    const waiting = JSON.parse(paused.stdout);
    expect(waiting).toMatchObject({
      status: 'interrupted',
      waiting_for: { tool: 'memory.store', arguments: { key: 'k', value: 1 } },
    });
    const approved = await cli([
      'resume',
      waiting.run_id,
      '--trace-dir',
      traceDir,
      '--approve',
      '--llm-base-url',
      baseUrl,
    ]);
    expect(approved.code, approved.stderr).toBe(0);
    expect(JSON.parse(approved.stdout).react.final_answer).toBe('Observation: {"stored":true}');
    const again = await cli([
      'resume',
      waiting.run_id,
      '--trace-dir',
      traceDir,
      '--approve',
      '--llm-base-url',
      baseUrl,
    ]);
    expect(again.code).not.toBe(0);
  });

  it('--deny feeds back "Denied by user"', async () => {
    const traceDir = mkdtempSync(path.join(tmpdir(), 'tea-react-traces-'));
    const paused = await cli([
      'run',
      agentFile(agent('save the value', 'json', '[{name: memory.store, tier: 3}]')),
      '--llm-base-url',
      baseUrl,
      '--trace-dir',
      traceDir,
    ]);
    expect(paused.code).toBe(3);
    const denied = await cli([
      'resume',
      JSON.parse(paused.stdout).run_id,
      '--trace-dir',
      traceDir,
      '--deny',
      '--llm-base-url',
      baseUrl,
    ]);
    expect(denied.code, denied.stderr).toBe(0);
    expect(JSON.parse(denied.stdout).react.final_answer).toBe('Observation: Denied by user');
  });
});
