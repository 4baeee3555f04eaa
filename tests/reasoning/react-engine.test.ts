/**
 * reason.react through the engine: a tier-3 tool pauses the run (confirmation_request + interrupt +
 * checkpoint), resume with approval runs it exactly once, denial feeds back "Denied by user", run
 * memory survives the pause, roles come from RunOptions, and traces travel in the events.
 */
import { describe, expect, it } from 'vitest';
import { resumeAgent, runAgent } from '../../src/graph/run-agent.js';
import { loadAgent } from '../../src/load-agent-with-scripts.js';
import { createActionRegistry } from '../../src/builtins.js';
import { createMemoryStores } from '../../src/storage/memory-store.js';
import type { ActionDefinition } from '../../src/core/action.js';
import type { AgentEvent } from '../../src/core/events.js';
import type { AgentRun, RunOptions } from '../../src/graph/run-types.js';

const AGENT = `
name: react-approval
settings:
  llm:
    provider: scripted
    model: scripted-demo
    scripted:
      - '{"thought": "remember", "action": "memory.store", "action_input": {"key": "to", "value": "ops@example.test"}}'
      - '{"thought": "send it", "action": "mail.send", "action_input": {"to": "ops@example.test", "body": "hi"}}'
      - '{"thought": "check memory", "action": "memory.retrieve", "action_input": {"key": "to"}}'
      - '{"thought": "admin only", "action": "admin.purge", "action_input": {}}'
      - '{"thought": "done", "action": "final_answer", "action_input": {"answer": "mail handled"}}'
nodes:
  - name: act
    uses: reason.react
    with:
      goal: Send the report
      tools:
        - memory.store
        - memory.retrieve
        - { name: mail.send, tier: 3, requires_role: operator }
        - { name: admin.purge, requires_role: admin }
    output: react
`;

function mailActions() {
  const sent: unknown[] = [];
  const purged: unknown[] = [];
  const actions: ActionDefinition[] = [
    {
      name: 'mail.send',
      description: 'Send an e-mail',
      parameters: {
        type: 'object',
        properties: { to: { type: 'string' }, body: { type: 'string' } },
        required: ['to', 'body'],
        additionalProperties: false,
      },
      sideEffects: true,
      run(params) {
        sent.push(params);
        return { sent: true };
      },
    },
    {
      name: 'admin.purge',
      description: 'Purge everything',
      parameters: { type: 'object' },
      sideEffects: true,
      run: () => purged.push(1),
    },
  ];
  return { sent, purged, actions };
}

async function drain(run: AgentRun): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of run) events.push(event);
  return events;
}

async function startAndPause(options: RunOptions) {
  const mail = mailActions();
  const agent = loadAgent(AGENT, { file: 'react-approval.yaml', registry: createActionRegistry(mail.actions) });
  const run = runAgent(agent, {}, options);
  const events = await drain(run);
  return { agent, mail, events, result: await run.result };
}

describe('reason.react in the engine', () => {
  it('tier 3 pauses with confirmation_request and an interrupt; approval runs the tool once; memory survives', async () => {
    const stores = createMemoryStores();
    const options: RunOptions = { ...stores, role: 'operator' };
    const { agent, mail, events, result } = await startAndPause(options);
    expect(result.status).toBe('interrupted');
    expect(result.stop_reason).toBe('confirmation');
    expect(mail.sent).toHaveLength(0);
    const request = events.find((event) => event.type === 'confirmation_request')!;
    expect(request.data).toMatchObject({ tool: 'mail.send', arguments: { to: 'ops@example.test', body: 'hi' } });
    expect(events.some((event) => event.type === 'interrupt')).toBe(true);

    const resumed = resumeAgent(agent, result.run_id, { approval: { approved: true } }, options);
    const resumedEvents = await drain(resumed);
    const final = await resumed.result;
    expect(final.status, JSON.stringify(final.error)).toBe('completed');
    expect(mail.sent).toEqual([{ to: 'ops@example.test', body: 'hi' }]);
    expect(mail.purged).toHaveLength(0);
    const react = final.state['react'] as Record<string, unknown>;
    const steps = react['steps'] as Array<Record<string, unknown>>;
    const observations = steps.map((step) => step['observation']);
    // Whether or not the scripted list continues where it stopped after the resume, a replayed
    // call is reported as repeated and never executed again: the mail goes out exactly once.
    expect(observations.filter((observation) => observation === '{"sent":true}')).toHaveLength(1);
    expect(observations).toContain('{"value":"ops@example.test"}');
    expect(observations).toContain('Access denied: admin.purge requires role admin');
    expect(observations.at(-1)).toBe('Goal achieved.');
    expect(react['final_answer']).toBe('mail handled');
    expect(resumedEvents.filter((event) => event.type === 'tool_start').map((event) => event.data['tool'])).toEqual([
      'mail.send',
      'memory.retrieve',
    ]);
    // The answer itself is an event: which call, approved, and the resumer's role.
    const answer = resumedEvents.find((event) => event.type === 'log' && event.data['source'] === 'approval');
    expect(answer?.data).toMatchObject({ tool: 'mail.send', approved: true, role: 'operator' });
    expect(resumedEvents.indexOf(answer!)).toBeLessThan(
      resumedEvents.findIndex((event) => event.type === 'tool_start'),
    );

    // The same checkpoint cannot be resumed twice, so the mail cannot be sent twice.
    const again = resumeAgent(agent, result.run_id, { approval: { approved: true } }, options);
    await drain(again);
    expect((await again.result).status).not.toBe('completed');
    expect(mail.sent).toHaveLength(1);
  });

  it('denial feeds back "Denied by user" and the tool never runs', async () => {
    const stores = createMemoryStores();
    const options: RunOptions = { ...stores, role: 'operator' };
    const { agent, mail, result } = await startAndPause(options);
    const resumed = resumeAgent(agent, result.run_id, { approval: { approved: false } }, options);
    const resumedEvents = await drain(resumed);
    const final = await resumed.result;
    expect(final.status).toBe('completed');
    expect(mail.sent).toHaveLength(0);
    expect(
      resumedEvents.find((event) => event.type === 'log' && event.data['source'] === 'approval')?.data,
    ).toMatchObject({ tool: 'mail.send', approved: false });
    const steps = (final.state['react'] as Record<string, unknown>)['steps'] as Array<Record<string, unknown>>;
    expect(steps[1]!['observation']).toBe('Denied by user');
  });

  it('a caller below the required role is denied before any confirmation is asked', async () => {
    const stores = createMemoryStores();
    const { mail, result, events } = await startAndPause({ ...stores, role: 'viewer' });
    expect(result.status).toBe('completed');
    expect(events.some((event) => event.type === 'confirmation_request')).toBe(false);
    expect(mail.sent).toHaveLength(0);
    const steps = (result.state['react'] as Record<string, unknown>)['steps'] as Array<Record<string, unknown>>;
    expect(steps[1]!['observation']).toBe('Access denied: mail.send requires role operator');
  });

  it('the reasoning trace is part of the node_end event of the run', async () => {
    const stores = createMemoryStores();
    const { events } = await startAndPause({ ...stores, role: 'viewer' });
    const end = events.find((event) => event.type === 'node_end' && event.node === 'act')!;
    const trace = JSON.stringify(end.data);
    expect(trace).toContain('react_start');
    expect(trace).toContain('react_complete');
  });
});
