/**
 * Model faults seen from an agent run: typed errors after the retries the agent allows, budgets
 * counting retries, cancellation reaching the server, and a canary API key absent from every
 * stored byte of the trace.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runAgent } from '../../src/graph/run-agent.js';
import { loadAgent } from '../../src/load-agent-with-scripts.js';
import type { AgentEvent } from '../../src/core/events.js';
import type { RunOptions } from '../../src/graph/run-types.js';
import { createMemoryStores } from '../../src/storage/memory-store.js';
import { startMockOpenAI, type MockFault, type MockOpenAI } from '../support/mock-openai-server.js';

const CANARY = 'sk-canary-agent-trace-31337';
let server: MockOpenAI;
beforeAll(async () => {
  server = await startMockOpenAI({ chunkSize: 2 });
});
afterAll(() => server.close());
beforeEach(() => {
  server.setFault();
  server.setReplies(['Fine answer.']);
  server.requests.length = 0;
});

const agent = (
  llm: string,
  node = '{ name: ask, uses: llm.call, with: { prompt: "Hi" }, output: answer }',
  extra = '',
) => loadAgent(`name: faults\nsettings:\n  llm: ${llm}\n${extra}nodes:\n  - ${node}\n`);

async function run(yaml: ReturnType<typeof agent>, options: RunOptions = {}) {
  const started = runAgent(yaml, {}, options);
  const events: AgentEvent[] = [];
  for await (const event of started) events.push(event);
  return { events, result: await started.result, runId: started.runId };
}

describe('model faults in a run', () => {
  const faults: { fault: MockFault; code: string; requests: number; stream?: boolean }[] = [
    { fault: { type: 'status', status: 503 }, code: 'LLM_HTTP_503', requests: 2 },
    { fault: { type: 'status', status: 429, retryAfter: '0' }, code: 'LLM_HTTP_429', requests: 2 },
    { fault: { type: 'status', status: 401 }, code: 'LLM_HTTP_401', requests: 1 },
    { fault: { type: 'delay', ms: 3_000 }, code: 'LLM_TIMEOUT', requests: 2 },
    { fault: { type: 'empty_choices' }, code: 'LLM_BAD_RESPONSE', requests: 1 },
    { fault: { type: 'not_json' }, code: 'LLM_BAD_RESPONSE', requests: 1 },
    { fault: { type: 'cut', afterChunks: 2 }, code: 'LLM_BAD_RESPONSE', requests: 1, stream: true },
    { fault: { type: 'malformed_chunk', at: 2 }, code: 'LLM_BAD_RESPONSE', requests: 1, stream: true },
  ];
  for (const testCase of faults) {
    it(`${testCase.fault.type}${'status' in testCase.fault ? ` ${testCase.fault.status}` : ''} → ${testCase.code} after ${testCase.requests} request(s)`, async () => {
      server.setFault(testCase.fault);
      const uses = testCase.stream === true ? 'llm.stream' : 'llm.call';
      const timeout = testCase.fault.type === 'delay' ? 0.3 : 10;
      const { result, events } = await run(
        agent(
          `{ api_base: "${server.url}", model: m, max_retries: 1, timeout: ${timeout} }`,
          `{ name: ask, uses: ${uses}, with: { prompt: "Hi" } }`,
        ),
      );
      expect(result.status).toBe('failed');
      expect(result.error).toMatchObject({ code: testCase.code, node: 'ask' });
      expect(server.chatRequests).toHaveLength(testCase.requests);
      expect(events.filter((event) => event.type === 'llm_response').at(-1)!.data.error).toMatchObject({
        code: testCase.code,
      });
      expect(
        events.some(
          (event) =>
            event.type === 'node_end' && event.node === 'ask' && 'content' in ((event.data.update as object) ?? {}),
        ),
      ).toBe(false);
    });
  }

  it('retries count in max_llm_calls', async () => {
    server.setFault({ type: 'status', status: 503 });
    const { result } = await run(
      agent(`{ api_base: "${server.url}", max_retries: 5 }`, undefined, '  limits: { max_llm_calls: 2 }\n'),
    );
    expect(result.error!.code).toBe('BUDGET_EXCEEDED');
    expect(result.stop_reason).toBe('max_llm_calls');
    expect(server.chatRequests).toHaveLength(2);
  });

  it('cancelling the run aborts the streaming request; the server sees the connection close', async () => {
    const slow = await startMockOpenAI({
      chunkSize: 1,
      chunkDelayMs: 40,
      replies: ['a slow and rather long streamed answer'],
    });
    try {
      const started = runAgent(
        agent(`{ api_base: "${slow.url}" }`, '{ name: ask, uses: llm.stream, with: { prompt: "Hi" } }'),
        {},
      );
      let chunks = 0;
      for await (const event of started) {
        if (event.type === 'answer_chunk' && ++chunks === 2) started.cancel();
      }
      const result = await started.result;
      expect(result.status).toBe('cancelled');
      for (let tries = 0; tries < 100 && !slow.chatRequests[0]!.aborted; tries++)
        await new Promise((resolve) => setTimeout(resolve, 10));
      expect(slow.chatRequests[0]!.aborted).toBe(true);
    } finally {
      await slow.close();
    }
  });

  it('a canary api_key is in no stored byte of the trace', async () => {
    const stores = createMemoryStores();
    const llm = `{ api_base: "${server.url}", api_key: ${CANARY}, max_retries: 0 }`;
    server.setFault({
      type: 'status',
      status: 401,
      body: JSON.stringify({ error: { message: `Incorrect API key provided: ${CANARY}` } }),
    });
    const failed = await run(agent(llm, undefined, '  trace: { capture_payloads: true }\n'), {
      traceStore: stores.traceStore,
    });
    server.setFault();
    server.setReplies([`echo ${CANARY}`]);
    const streamed = await run(
      agent(
        llm,
        `{ name: ask, uses: llm.stream, with: { prompt: "say ${CANARY}" } }`,
        '  trace: { capture_payloads: true }\n',
      ),
      { traceStore: stores.traceStore },
    );
    expect(failed.result.error!.code).toBe('LLM_HTTP_401');
    expect(server.chatRequests.at(-1)!.headers.authorization).toBe(`Bearer ${CANARY}`);
    const stored: unknown[] = [];
    for (const runId of [failed.runId, streamed.runId])
      stored.push(await stores.traceStore.readEvents(runId), await stores.traceStore.getRun(runId));
    const everything = JSON.stringify({ stored, failed, streamed });
    expect(everything).not.toContain(CANARY);
    expect(everything).toContain('llm_response');
  });
});
