/**
 * Issue 12 point 7: a tool call must never widen what the model may call. Actions whose
 * parameters choose what else runs (reason.react's tools, llm.tools' tools, reflection generators,
 * correctors and evaluators, reflection.review's run id) cannot be tools at all: refused at load,
 * under any spelling. Approvals are tied to a role: a viewer cannot approve a call that an admin's
 * (or a user's) run is waiting on; the call keeps waiting for someone who may.
 */
import { describe, expect, it } from 'vitest';
import { AgentError } from '../../src/core/agent-error.js';
import { resumeAgent, runAgent } from '../../src/graph/run-agent.js';
import { loadAgent } from '../../src/load-agent-with-scripts.js';
import { createActionRegistry } from '../../src/builtins.js';
import { createMemoryStores } from '../../src/storage/memory-store.js';
import type { ActionDefinition } from '../../src/core/action.js';
import type { AgentEvent } from '../../src/core/events.js';
import type { AgentRun, RunOptions } from '../../src/graph/run-types.js';

function loadError(text: string, actions: ActionDefinition[] = []): AgentError {
  try {
    loadAgent(text, { file: 'escape.yaml', registry: createActionRegistry(actions) });
  } catch (error) {
    if (AgentError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected the agent to be refused at load');
}

const reactWith = (tools: unknown[]) => `name: escape
settings: { llm: { provider: scripted, scripted: ['{"action": "final_answer", "action_input": {"answer": 1}}'] } }
nodes:
  - name: act
    uses: reason.react
    with: { goal: g, tools: ${JSON.stringify(tools)} }
`;

describe('composite actions cannot be tools', () => {
  it.each([
    'reason.react',
    'llm.tools',
    'reflection.loop',
    'reflection.correct',
    'reflection.evaluate',
    'reflection.review',
    'actions.reflection_loop',
  ])('reason.react refuses %s as a tool at load', (name) => {
    const error = loadError(reactWith([name]));
    expect(error.code).toBe('INVALID_PARAMS');
    expect(error.message).toContain('cannot be a tool');
    expect(error.location.field).toContain('tools[0]');
  });

  it("the issue's attack cannot be written: a viewer-facing reason.react tool next to an admin-only tier-3 memory.store", () => {
    const error = loadError(reactWith(['reason.react', { name: 'memory.store', tier: 3, requires_role: 'admin' }]));
    expect(error.message).toContain("'reason.react' cannot be a tool");
  });

  it.each([
    ['an action name', 'reason.react'],
    ['an OpenAI definition resolved by its wire name', { type: 'function', function: { name: 'reflection_loop' } }],
    ['a TEA entry pointing at a composite action', { name: 'helper', action: 'reflection.correct' }],
  ])('llm.tools refuses a composite action given as %s', (_label, tool) => {
    const text = `name: escape\nnodes:\n  - name: t\n    uses: llm.tools\n    with: { prompt: go, tools: [${JSON.stringify(tool)}] }\n`;
    const error = loadError(text);
    expect(error.message).toContain('cannot be a tool');
  });

  it('plain actions and model-only reasoning actions can still be tools', () => {
    expect(() =>
      loadAgent(reactWith(['math.calculate', 'reason.cot', { name: 'memory.store', tier: 3 }])),
    ).not.toThrow();
  });
});

const APPROVAL_AGENT = `
name: approvals
settings:
  llm:
    provider: scripted
    scripted:
      - '{"thought": "send", "action": "mail.send", "action_input": {"to": "ops"}}'
      - '{"thought": "done", "action": "final_answer", "action_input": {"answer": "sent"}}'
nodes:
  - name: act
    uses: reason.react
    with:
      goal: Send it
      tools: [{ name: mail.send, tier: 3 }]
    output: react
`;

async function drain(run: AgentRun): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of run) events.push(event);
  return events;
}

describe('approvals are tied to a role', () => {
  const setup = () => {
    const sent: unknown[] = [];
    const mail: ActionDefinition = {
      name: 'mail.send',
      description: 'Send',
      parameters: { type: 'object', properties: { to: { type: 'string' } } },
      sideEffects: true,
      run: (params) => (sent.push(params), { sent: true }),
    };
    const agent = loadAgent(APPROVAL_AGENT, { file: 'approvals.yaml', registry: createActionRegistry([mail]) });
    return { sent, agent, stores: createMemoryStores() };
  };

  it("a viewer's approval of an admin's waiting call does not count; the call waits again, then an admin approves it", async () => {
    const { sent, agent, stores } = setup();
    const admin: RunOptions = { ...stores, role: 'admin' };
    const first = runAgent(agent, {}, admin);
    await drain(first);
    const paused = await first.result;
    expect(paused.stop_reason).toBe('confirmation');

    const byViewer = resumeAgent(agent, paused.run_id, { approval: { approved: true } }, { ...stores, role: 'viewer' });
    const viewerEvents = await drain(byViewer);
    const afterViewer = await byViewer.result;
    expect(afterViewer.status).toBe('interrupted');
    expect(afterViewer.stop_reason).toBe('confirmation');
    expect(sent).toHaveLength(0);
    expect(viewerEvents.some((event) => event.type === 'error' && event.data['code'] === 'FORBIDDEN')).toBe(true);
    expect(viewerEvents.some((event) => event.type === 'confirmation_request')).toBe(true);

    const byOperator = resumeAgent(
      agent,
      paused.run_id,
      { approval: { approved: true } },
      { ...stores, role: 'operator' },
    );
    await drain(byOperator);
    expect((await byOperator.result).stop_reason).toBe('confirmation');
    expect(sent).toHaveLength(0);

    const byAdmin = resumeAgent(agent, paused.run_id, { approval: { approved: true } }, admin);
    await drain(byAdmin);
    const done = await byAdmin.result;
    expect(done.status, JSON.stringify(done.error)).toBe('completed');
    expect(sent).toEqual([{ to: 'ops' }]);
  });

  it("a viewer's denial counts (the safe direction)", async () => {
    const { sent, agent, stores } = setup();
    const first = runAgent(agent, {}, { ...stores, role: 'user' });
    await drain(first);
    const paused = await first.result;
    const denied = resumeAgent(agent, paused.run_id, { approval: { approved: false } }, { ...stores, role: 'viewer' });
    await drain(denied);
    const done = await denied.result;
    expect(done.status).toBe('completed');
    expect(sent).toHaveLength(0);
    const steps = (done.state['react'] as { steps: Array<{ observation: string }> }).steps;
    expect(steps[0]!.observation).toBe('Denied by user');
  });

  it("a user's run is approved by a user (same rank) as before", async () => {
    const { sent, agent, stores } = setup();
    const first = runAgent(agent, {}, { ...stores });
    await drain(first);
    const paused = await first.result;
    const approved = resumeAgent(agent, paused.run_id, { approval: { approved: true } }, { ...stores });
    await drain(approved);
    expect((await approved.result).status).toBe('completed');
    expect(sent).toHaveLength(1);
  });
});
