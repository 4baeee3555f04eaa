/**
 * Issue 12 point 10: `http.get` whose server stalls while sending the body. The tool's own timeout
 * is a tool error (ACTION_FAILED) that a ReAct model sees as an observation and can react to; it
 * no longer cancels the whole run. Cancelling the run itself still ends it as cancelled.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpGet } from '../../src/tools/http-get.js';
import { runAgent } from '../../src/graph/run-agent.js';
import { loadAgent } from '../../src/load-agent-with-scripts.js';
import type { AgentEvent } from '../../src/core/events.js';
import { createTestActionContext } from '../../src/testing/test-action-context.js';

let server: Server;
let origin = '';
const stalled: ServerResponse[] = [];
beforeAll(async () => {
  server = createServer((request, response) => {
    if (request.url === '/stall-body') {
      // Headers and the first bytes, then nothing: the body never completes.
      response.writeHead(200, { 'content-type': 'text/plain', 'content-length': '1000' });
      response.flushHeaders();
      response.write('partial body...');
      stalled.push(response);
      return;
    }
    response.writeHead(200, { 'content-type': 'text/plain' }).end('fine');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const response of stalled) response.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('http.get timing out while reading the body', () => {
  it('is ACTION_FAILED naming the body, not a raw abort', async () => {
    const context = createTestActionContext({ settings: { http: { allow: [origin], timeout_ms: 2000 } } });
    await expect(httpGet().run({ url: `${origin}/stall-body` }, context)).rejects.toMatchObject({
      code: 'ACTION_FAILED',
      message: expect.stringContaining('while reading the body'),
    });
  });

  const agent = (timeoutMs: number) => `
name: body-timeout
settings:
  http: { allow: ["${origin}"], timeout_ms: ${timeoutMs} }
  llm:
    provider: scripted
    scripted:
      - '{"thought": "fetch", "action": "http.get", "action_input": {"url": "${origin}/stall-body"}}'
      - '{"thought": "it timed out, answer anyway", "action": "final_answer", "action_input": {"answer": "the page did not load"}}'
nodes:
  - name: act
    uses: reason.react
    with: { goal: Read the page, tools: [http.get] }
    output: react
`;

  it('inside reason.react it is an observation the model reacts to; the run completes', async () => {
    const run = runAgent(loadAgent(agent(2000)), {}, {});
    for await (const _event of run) void _event;
    const result = await run.result;
    expect(result.status, JSON.stringify(result.error)).toBe('completed');
    const react = result.state.react as {
      final_answer: unknown;
      steps: Array<{ observation: string; status?: string }>;
    };
    expect(react.steps[0]!.status).toBe('error');
    expect(react.steps[0]!.observation).toContain('timed out after 2000 ms while reading the body');
    expect(react.final_answer).toBe('the page did not load');
  });

  it('cancelling the run while the body stalls still ends the run as cancelled', async () => {
    const run = runAgent(loadAgent(agent(60_000)), {}, {});
    const events: AgentEvent[] = [];
    for await (const event of run) {
      events.push(event);
      if (event.type === 'tool_start') setTimeout(() => run.cancel(), 50);
    }
    const result = await run.result;
    expect(result.status).toBe('cancelled');
  });
});
