/**
 * The record of a run's end says what it used (the studio's history lists it): model calls and
 * tokens from the run budget, and the models its calls went to, across a pause and its resume.
 */
import { describe, expect, it } from 'vitest';
import { resumeAgent, runAgent } from '../../src/graph/run-agent.js';
import { loadAgent } from '../../src/load-agent-with-scripts.js';
import type { ModelProvider } from '../../src/core/model-provider.js';
import type { RunOptions } from '../../src/graph/run-types.js';
import { createMemoryStores } from '../../src/storage/memory-store.js';

/** Answers every call with the model it was asked for, 7 tokens each. */
const echoModel: ModelProvider = {
  async generate(request) {
    return {
      content: 'ok',
      model: request.model ?? 'default',
      usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
      finish_reason: 'stop',
    };
  },
  // biome-ignore lint/correctness/useYield: never streamed in these tests
  async *stream() {
    throw new Error('not used');
  },
};

const AGENT = `
name: two-models
settings:
  llm: { provider: openai, api_base: http://127.0.0.1:9/v1 }
nodes:
  - name: first
    uses: llm.call
    with: { model: small-model, prompt: one }
    output: a
  - name: second
    uses: llm.call
    with: { model: big-model, prompt: two }
    output: b
    interrupt: before
  - name: third
    uses: llm.call
    with: { model: small-model, prompt: three }
    output: c
`;

async function drain(run: ReturnType<typeof runAgent>) {
  for await (const _event of run);
  return run.result;
}

describe('run record: usage and models', () => {
  it('the record of the end counts calls, tokens and models across a resume', async () => {
    const stores = createMemoryStores();
    const agent = loadAgent(AGENT, { file: 'two-models.yaml' });
    const options: RunOptions = { ...stores, llm: { providerFactory: () => echoModel } };
    const paused = await drain(runAgent(agent, {}, options));
    expect(paused.status).toBe('interrupted');
    expect(await stores.traceStore.getRun(paused.run_id)).toMatchObject({
      status: 'interrupted',
      usage: { llm_calls: 1, tokens: 7 },
      models: ['small-model'],
    });

    const done = await drain(resumeAgent(agent, paused.run_id, {}, options));
    expect(done.status).toBe('completed');
    // The earlier segment's model is kept (from its record); each model is listed once.
    expect(await stores.traceStore.getRun(paused.run_id)).toMatchObject({
      status: 'completed',
      usage: { llm_calls: 3, tokens: 21 },
      models: ['small-model', 'big-model'],
    });
  });

  it('a run without model calls records zero usage and no models', async () => {
    const stores = createMemoryStores();
    const agent = loadAgent('name: plain\nnodes:\n  - name: only\n    uses: core.return\n\n', { file: 'plain.yaml' });
    const done = await drain(runAgent(agent, {}, stores));
    const record = await stores.traceStore.getRun(done.run_id);
    expect(record).toMatchObject({ status: 'completed', usage: { llm_calls: 0, tokens: 0 } });
    expect(record).not.toHaveProperty('models');
  });
});
