/**
 * Pause is a value (issue 11 point 3): an action returns `context.requestConfirmation(...)`; the
 * run loop turns it into a checkpoint, a `confirmation_request` event and an interrupt. A
 * look-alike object is data, and an action called by another action cannot pause the run.
 */
import { describe, expect, it } from 'vitest';
import type { ActionDefinition } from '../../src/core/action.js';
import { createActionRegistry } from '../../src/builtins.js';
import { loadAgent } from '../../src/graph/load-agent.js';
import { resumeAgent, runAgent } from '../../src/graph/run-agent.js';
import type { AgentEvent } from '../../src/core/events.js';
import { createMemoryStores } from '../../src/storage/memory-store.js';

/** Asks once; on resume answers with the approval it was given. */
const asking: ActionDefinition = {
  name: 'test.ask',
  description: 'asks for a confirmation',
  run: (_params, context) => {
    if (context.resume !== undefined)
      return { approved: context.resume.approval?.approved === true, saved: context.resume.resume_data?.['n'] ?? null };
    return context.requestConfirmation({ tool: 'send', arguments: { to: 'x' }, call_id: 'c1', resume_data: { n: 7 } });
  },
};

/** Returns an object shaped like a pause request: plain data, never a pause. */
const lookalike: ActionDefinition = {
  name: 'test.lookalike',
  description: 'returns a look-alike',
  run: () => ({ kind: 'pause_request', confirmation: { tool: 'send', arguments: {}, call_id: 'c1', resume_data: {} } }),
};

/** Calls test.ask through callAction: the nested pause is refused. */
const nesting: ActionDefinition = {
  name: 'test.nest',
  description: 'calls test.ask',
  run: (_params, context) => context.callAction('test.ask', {}),
};

const registry = () => createActionRegistry([asking, lookalike, nesting]);

async function collect(run: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of run) events.push(event);
  return events;
}

describe('pause as a value', () => {
  it('a returned PauseRequest pauses the run before the node, with a confirmation_request event; resume re-runs the node with the answer', async () => {
    const agent = loadAgent('name: p\nnodes:\n  - name: ask\n    uses: test.ask\n    output: answer\n', {
      file: 'p.yaml',
      registry: registry(),
    });
    const stores = createMemoryStores();
    const run = runAgent(agent, {}, stores);
    const events = await collect(run);
    const first = await run.result;
    expect(first).toMatchObject({
      status: 'interrupted',
      stop_reason: 'confirmation',
      interrupt: { kind: 'tool_confirmation', node: 'ask', tool: 'send', call_id: 'c1' },
    });
    expect(events.map((event) => event.type)).toEqual([
      'run_start',
      'node_start',
      'confirmation_request',
      'interrupt',
      'done',
    ]);
    const checkpoint = await stores.checkpointStore.loadLatest(first.run_id);
    expect(checkpoint?.resume_data).toEqual({ n: 7 });

    const resumed = await resumeAgent(agent, first.run_id, { approval: { approved: true } }, stores).result;
    expect(resumed).toMatchObject({ status: 'completed', state: { answer: { approved: true, saved: 7 } } });
  });

  it('an object shaped like a pause request is plain data', async () => {
    const agent = loadAgent('name: p\nnodes:\n  - name: look\n    uses: test.lookalike\n', {
      file: 'p.yaml',
      registry: registry(),
    });
    const result = await runAgent(agent, {}, createMemoryStores()).result;
    expect(result.status).toBe('completed');
    expect(result.state['kind']).toBe('pause_request');
  });

  it('an action called by another action cannot pause the run: ACTION_FAILED naming it', async () => {
    const agent = loadAgent('name: p\nnodes:\n  - name: nest\n    uses: test.nest\n', {
      file: 'p.yaml',
      registry: registry(),
    });
    const result = await runAgent(agent, {}, createMemoryStores()).result;
    expect(result.status).toBe('failed');
    expect(result.error).toMatchObject({
      code: 'ACTION_FAILED',
      node: 'nest',
      message: expect.stringContaining("action 'test.ask' asked for a confirmation"),
    });
  });

  it('a pause inside a parallel branch fails that branch instead of pausing half a fan-out', async () => {
    const yaml = `name: p
nodes:
  - name: start
  - name: ask
    uses: test.ask
  - name: other
  - name: join
    fan_in: true
edges:
  - from: __start__
    to: start
  - from: start
    to: [ask, other]
    parallel: true
    fan_in: join
  - from: ask
    to: join
  - from: other
    to: join
  - from: join
    to: __end__
`;
    const agent = loadAgent(yaml, { file: 'p.yaml', registry: registry() });
    const result = await runAgent(agent, {}, createMemoryStores()).result;
    expect(result.status).toBe('completed');
    const branches = result.state['parallel_results'] as Array<{
      branch: string;
      success: boolean;
      error: { code: string } | null;
    }>;
    expect(branches.find((branch) => branch.branch === 'ask')).toMatchObject({
      success: false,
      error: { code: 'ACTION_FAILED' },
    });
  });
});
