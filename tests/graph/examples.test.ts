/** The TEA-style graph examples (while_loop, dynamic_parallel, edge conditions) run on their scripted models. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadAgent } from '../../src/load-agent-with-scripts.js';
import { runAgent } from '../../src/graph/run-agent.js';
import type { AgentEvent } from '../../src/core/events.js';

async function runExample(name: string, input: Record<string, unknown> = {}) {
  const agent = loadAgent(readFileSync(new URL(`../../examples/${name}.yaml`, import.meta.url), 'utf8'), {
    file: `${name}.yaml`,
  });
  expect(agent.warnings).toEqual([]);
  const run = runAgent(agent, input);
  const events: AgentEvent[] = [];
  for await (const event of run) events.push(event);
  const result = await run.result;
  expect(result.error).toBeUndefined();
  expect(result.status).toBe('completed');
  return { result, events };
}

describe('TEA graph examples on the scripted model', () => {
  it('tea-while-loop: loops until the Lua check accepts the reply (2 iterations, condition_false)', async () => {
    const { result, events } = await runExample('tea-while-loop');
    expect(result.state).toMatchObject({ is_valid: true, attempts: 2, name: 'Ada Lovelace', born: 1815 });
    expect(events.filter((event) => event.type === 'llm_request')).toHaveLength(2);
    expect(events.find((event) => event.type === 'log' && event.data.source === 'while_loop')?.data).toMatchObject({
      iterations_completed: 2,
      exit_reason: 'condition_false',
    });
  });

  it('tea-dynamic-parallel: one model call per topic, fan-in reads branch keys directly', async () => {
    const { result, events } = await runExample('tea-dynamic-parallel');
    expect(result.state.count).toBe(3);
    expect(result.state.digest).toBe(
      '1. green tea: Green tea is unoxidised and grassy.\n2. oolong: Oolong is partly oxidised, between green and black.\n3. black tea: Black tea is fully oxidised and malty.',
    );
    expect(events.filter((event) => event.type === 'llm_request')).toHaveLength(3);
  });

  it('tea-dynamic-parallel: branch model calls count against max_llm_calls', async () => {
    const agent = loadAgent(
      readFileSync(new URL('../../examples/tea-dynamic-parallel.yaml', import.meta.url), 'utf8'),
      { file: 'x.yaml' },
    );
    const run = runAgent(agent, {}, { limits: { max_llm_calls: 2 } });
    for await (const _event of run);
    const result = await run.result;
    expect(result.stop_reason).toBe('max_llm_calls');
  });

  it.each([
    [{}, { queue: 'billing', refund: true }],
    [{ ticket: 'The app crashes on start' }, { queue: 'engineering' }],
    [
      { ticket: 'The app crashes on start', urgent: true },
      { queue: 'engineering', paged: true },
    ],
    [{ ticket: 'Where is your office?' }, { queue: 'general' }],
  ])('tea-edge-conditions routes %j by the conditions', async (input, expected) => {
    const { result } = await runExample('tea-edge-conditions', input);
    expect(result.state).toMatchObject(expected);
    for (const key of ['refund', 'paged']) if (!(key in expected)) expect(result.state[key]).toBeUndefined();
  });
});
