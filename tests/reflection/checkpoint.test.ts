/**
 * History and errors survive a checkpoint and resume in the middle of a reflection loop (seed
 * 000 P0 #5, seed 001 "state corruption during iteration"). The loop is split over two nodes:
 * the first runs one iteration and the run pauses after it (interrupt: after); after resume, the
 * second node continues from `state.reflection_history` (`continue: true`) with the iteration
 * cap counting the earlier attempt, running the corrector on the saved errors first.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryStores } from '../../src/storage/memory-store.js';
import { resume, run } from './support.js';

const loopParams = {
  generator: { action: 'llm.call', prompt: 'Person JSON for {{ state.request }}' },
  evaluator: {
    type: 'schema',
    schema: { type: 'object', required: ['name', 'email'], properties: { email: { type: 'string', format: 'email' } } },
  },
  corrector: {
    action: 'llm.call',
    prompt:
      'Fix {{ state.reflection_output | tojson }}. Errors: {{ state.reflection_errors | map(attribute="message") | join("; ") }}',
  },
};

const yaml = JSON.stringify({
  name: 'split-loop',
  nodes: [
    { name: 'draft', uses: 'reflection.loop', interrupt: 'after', with: { ...loopParams, max_iterations: 1 } },
    { name: 'refine', uses: 'reflection.loop', with: { ...loopParams, max_iterations: 3, continue: true } },
  ],
});

describe('reflection across a checkpoint', () => {
  it('keeps history and errors across interrupt + resume, and the cap counts earlier attempts', async () => {
    const stores = createMemoryStores();
    const first = await run(
      yaml,
      { request: 'Ann' },
      { ...stores, responses: ['{"name": "Ann", "email": "not-an-email"}'] },
    );
    expect(first.result.status).toBe('interrupted');
    const saved = await stores.checkpointStore.loadLatest(first.result.run_id);
    expect((saved!.state.reflection_history as unknown[]).length).toBe(1);

    // A new "process": the agent is loaded again and the model is a fresh one.
    const second = await resume(
      yaml,
      first.result.run_id,
      {},
      { ...stores, responses: ['{"name": "Ann", "email": "ann@example.com"}'] },
    );
    expect(second.result.status).toBe('completed');
    const state = second.result.state;
    expect(state).toMatchObject({
      valid: true,
      reflection_iteration: 2,
      iterations: 2,
      output: { name: 'Ann', email: 'ann@example.com' },
    });
    const history = state.reflection_history as Array<{
      iteration: number;
      valid: boolean;
      source: string;
      errors: Array<{ path: string; keyword: string }>;
    }>;
    expect(history.map((attempt) => [attempt.iteration, attempt.valid, attempt.source])).toEqual([
      [1, false, 'generator'],
      [2, true, 'corrector'],
    ]);
    expect(history[0]!.errors).toEqual([expect.objectContaining({ path: '/email', keyword: 'format' })]);
    expect(second.calls).toHaveLength(1);
    expect(second.calls[0]!.request.messages.at(-1)!.content).toContain('format');
  });

  it('a continued loop that already used every iteration stops without new calls', async () => {
    const stores = createMemoryStores();
    const exhausted = JSON.stringify({
      name: 'split-loop',
      nodes: [
        { name: 'draft', uses: 'reflection.loop', interrupt: 'after', with: { ...loopParams, max_iterations: 2 } },
        {
          name: 'refine',
          uses: 'reflection.loop',
          with: { ...loopParams, max_iterations: 2, continue: true, on_failure: 'return_last' },
        },
      ],
    });
    const first = await run(
      exhausted,
      { request: 'Bo' },
      { ...stores, responses: ['{"name": "Bo"}', '{"name": "Bo", "email": "x"}'] },
    );
    expect(first.result.status).toBe('interrupted');
    const second = await resume(exhausted, first.result.run_id, {}, { ...stores, responses: [] });
    expect(second.result.status).toBe('completed');
    expect(second.calls).toHaveLength(0);
    expect(second.result.state).toMatchObject({
      valid: false,
      exhausted: true,
      iterations: 2,
      output: { name: 'Bo', email: 'x' },
    });
  });

  it('a valid earlier loop is returned as it is when continued', async () => {
    const stores = createMemoryStores();
    const first = await run(
      yaml,
      { request: 'Cy' },
      { ...stores, responses: ['{"name": "Cy", "email": "cy@example.com"}'] },
    );
    const second = await resume(yaml, first.result.run_id, {}, { ...stores, responses: [] });
    expect(second.result.state).toMatchObject({ valid: true, iterations: 1, stop_reason: 'valid' });
    expect(second.calls).toHaveLength(0);
  });
});
