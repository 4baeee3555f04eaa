/**
 * Run budgets that end runs: the duration budget aborts the model call or retry sleep in flight
 * (mock server, real HTTP), the default model-call budget stops a looping agent, and the operator's
 * override replaces it. Timeouts are generous: these prove that runs end, not how fast.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { resumeAgent, runAgent } from '../../src/graph/run-agent.js';
import { loadAgent } from '../../src/load-agent-with-scripts.js';
import type { AgentEvent } from '../../src/core/events.js';
import type { RunOptions } from '../../src/graph/run-types.js';
import { BUDGET_DEFAULTS, resolveLimits } from '../../src/graph/run-budget.js';
import { createMemoryStores } from '../../src/storage/memory-store.js';
import { startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.js';

let server: MockOpenAI;
beforeAll(async () => {
  server = await startMockOpenAI({ replies: ['fine'] });
});
afterAll(() => server.close());
beforeEach(() => {
  server.setFault();
  server.requests.length = 0;
});

async function run(yaml: string, options: RunOptions = {}) {
  const started = runAgent(loadAgent(yaml, { file: 'budget.yaml' }), {}, options);
  const events: AgentEvent[] = [];
  for await (const event of started) events.push(event);
  return { events, result: await started.result };
}

const httpAgent = (limits: string, llm = '') =>
  `name: timed\nsettings:\n  llm: { api_base: "${server.url}", model: m${llm} }\n  limits: { ${limits} }\nnodes:\n  - { name: ask, uses: llm.call, with: { prompt: "Hi" }, output: answer }\n`;

describe('max_duration_ms aborts the run signal', () => {
  it('a hung model call ends the run failed with stop reason max_duration_ms', { timeout: 20_000 }, async () => {
    server.setFault({ type: 'delay', ms: 15_000 });
    const stores = createMemoryStores();
    const { result, events } = await run(httpAgent('max_duration_ms: 1500', ', timeout: 60'), stores);
    expect(result.status).toBe('failed');
    expect(result.stop_reason).toBe('max_duration_ms');
    expect(result.error).toMatchObject({
      code: 'BUDGET_EXCEEDED',
      node: 'ask',
      details: { budget: 'max_duration_ms' },
    });
    const done = events.at(-1)!;
    expect(done.type).toBe('done');
    expect(done.data).toMatchObject({
      status: 'failed',
      stop_reason: 'max_duration_ms',
      error: { code: 'BUDGET_EXCEEDED' },
    });
    expect((await stores.traceStore.getRun(result.run_id))?.status).toBe('failed');
    // The request was cut, not waited out.
    for (let tries = 0; tries < 1000 && !server.chatRequests[0]?.aborted; tries++)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(server.chatRequests[0]?.aborted).toBe(true);
  });

  it('a 429 with Retry-After: 30 does not outlive the budget', { timeout: 20_000 }, async () => {
    server.setFault({ type: 'status', status: 429, retryAfter: '30' });
    const { result } = await run(httpAgent('max_duration_ms: 1500', ', max_retries: 3'));
    expect(result.status).toBe('failed');
    expect(result.stop_reason).toBe('max_duration_ms');
    expect(result.error?.details).toMatchObject({ budget: 'max_duration_ms' });
    expect(server.chatRequests).toHaveLength(1);
  });

  it('a host cancel is still a cancel, not a budget', { timeout: 20_000 }, async () => {
    server.setFault({ type: 'delay', ms: 15_000 });
    const controller = new AbortController();
    const pending = run(httpAgent('max_duration_ms: 60000', ', timeout: 60'), { signal: controller.signal });
    while (server.chatRequests.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    controller.abort();
    const { result } = await pending;
    expect(result.status).toBe('cancelled');
    expect(result.stop_reason).toBe('cancelled');
  });
});

describe('max_llm_calls', () => {
  const looping = (limits = '') =>
    `name: loop\nsettings:\n  llm: { provider: scripted, scripted: [{ default: "again" }] }\n${limits}nodes:\n  - { name: ask, uses: llm.call, with: { prompt: "Hi" }, output: answer, goto: ask }\n`;

  it(`is ${BUDGET_DEFAULTS.max_llm_calls} by default: a looping agent stops there, saying which budget`, async () => {
    const { result, events } = await run(looping());
    expect(result.status).toBe('failed');
    expect(result.stop_reason).toBe('max_llm_calls');
    expect(result.error?.details).toMatchObject({ budget: 'max_llm_calls' });
    expect(events.filter((event) => event.type === 'llm_request')).toHaveLength(BUDGET_DEFAULTS.max_llm_calls);
    expect(events.at(-1)!.data).toMatchObject({
      status: 'failed',
      stop_reason: 'max_llm_calls',
      error: { details: { budget: 'max_llm_calls' } },
    });
  });

  it('settings.limits sets it; the operator override replaces both; host limits stay ceilings', async () => {
    const own = await run(looping('  limits: { max_llm_calls: 3 }\n'));
    expect(own.events.filter((event) => event.type === 'llm_request')).toHaveLength(3);
    const raised = await run(looping('  limits: { max_llm_calls: 3 }\n'), { limitOverrides: { max_llm_calls: 150 } });
    expect(raised.events.filter((event) => event.type === 'llm_request')).toHaveLength(150);
    const hosted = await run(looping(), { limitOverrides: { max_llm_calls: 150 }, limits: { max_llm_calls: 7 } });
    expect(hosted.events.filter((event) => event.type === 'llm_request')).toHaveLength(7);
  });

  it('resolveLimits caps every value at its ceiling and ignores non-finite numbers', () => {
    expect(resolveLimits({ max_steps: 10 ** 9, max_llm_calls: Infinity }, {}, { max_tokens: 1e300 })).toEqual({
      max_steps: 100_000,
      max_llm_calls: 100,
      max_tokens: 100_000_000,
      max_write_bytes: 16 * 1024 * 1024,
    });
  });
});

describe('every failure is a failed run with a done event', () => {
  it('a settings.llm template that cannot render fails the run instead of throwing from runAgent', async () => {
    const { result, events } = await run(
      'settings:\n  llm: { model: "{{ none.x.y() }}" }\nnodes:\n  - { name: a, run: "return {}" }\n',
    );
    expect(result.status).toBe('failed');
    expect(events.at(-1)!.type).toBe('done');
  });

  it('a megabyte error message is capped in the result, the done event and the run record', async () => {
    const stores = createMemoryStores();
    const { result, events } = await run('nodes:\n  - name: boom\n    run: error(string.rep("x", 1000000))\n', stores);
    expect(result.status).toBe('failed');
    expect(result.error!.message.length).toBeLessThan(5000);
    expect(JSON.stringify(events.at(-1)).length).toBeLessThan(70_000);
    const record = await stores.traceStore.getRun(result.run_id);
    expect(JSON.stringify(record).length).toBeLessThan(20_000);
  });
});

describe('resume failures', () => {
  const paused =
    'name: resumable\nconfig:\n  interrupt_after: [a]\nnodes:\n  - name: a\n    run: "return { n = 1 }"\n    goto:\n      - if: "none.x.y()"\n        to: b\n      - to: b\n  - { name: b, run: "return { done = true }" }\n';

  it('a route that fails after the claim ends in a failed run with its done event and record', async () => {
    const stores = createMemoryStores();
    const first = await run(paused, stores);
    expect(first.result.status).toBe('interrupted');
    const resumed = resumeAgent(loadAgent(paused, { file: 'budget.yaml' }), first.result.run_id, {}, stores);
    const events: AgentEvent[] = [];
    for await (const event of resumed) events.push(event);
    const result = await resumed.result;
    expect(result.status).toBe('failed');
    expect(events.at(-1)).toMatchObject({ type: 'done', data: { status: 'failed' } });
    expect((await stores.traceStore.getRun(result.run_id))?.status).toBe('failed');
  });

  it('an agent edited since the pause is refused before the claim, so the run stays resumable', async () => {
    const stores = createMemoryStores();
    const first = await run(paused, stores);
    const edited = loadAgent(
      paused.replace(/name: a\n/, 'name: renamed\n').replace('interrupt_after: [a]', 'interrupt_after: [renamed]'),
      { file: 'budget.yaml' },
    );
    const refused = await resumeAgent(edited, first.result.run_id, {}, stores).result;
    expect(refused.error?.code).toBe('CONFLICT');
    expect(await stores.checkpointStore.loadLatest(first.result.run_id)).toBeDefined();
    const fixed = paused.replace('if: "none.x.y()"', 'if: "true"');
    expect(
      (await resumeAgent(loadAgent(fixed, { file: 'budget.yaml' }), first.result.run_id, {}, stores).result).status,
    ).toBe('completed');
  });
});
