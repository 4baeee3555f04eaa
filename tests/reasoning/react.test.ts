/** reason.react: seed 003's assertions, limits, tool safety, tool modes, and pause/resume (fake context). */
import { describe, expect, it } from 'vitest';
import { AgentError } from '../../src/core/agent-error.js';
import type { ActionDefinition } from '../../src/core/action.js';
import { isPauseRequest } from '../../src/actions/pause-request.js';
import type { ConfirmationRequest } from '../../src/core/action.js';
import { runAction } from './fake-context.js';
import { createTestActionContext, type TestActionContextOptions } from '../../src/testing/test-action-context.js';

const json = (value: unknown) => JSON.stringify(value);
const call = (action: string, input: unknown = {}, thought = 'thinking') =>
  json({ thought, action, action_input: input });
const final = (answer: unknown) => json({ thought: 'done', action: 'final_answer', action_input: { answer } });

function spy(name: string, extra: Partial<ActionDefinition> = {}) {
  const calls: unknown[] = [];
  const action: ActionDefinition = {
    name,
    description: `spy ${name}`,
    parameters: { type: 'object', properties: { q: { type: 'string', maxLength: 100 } }, additionalProperties: false },
    run(params) {
      calls.push(params);
      return { ok: true, q: (params as { q?: string }).q ?? null };
    },
    ...extra,
  };
  return { action, calls };
}

async function react(
  params: Record<string, unknown>,
  options: TestActionContextOptions & { actions?: ActionDefinition[] },
) {
  const context = createTestActionContext(options);
  const result = await runAction('reason.react', params, context, options.actions ?? []);
  return { result, context };
}

/** The confirmation the action asked for (it returns a PauseRequest value, see src/actions/pause-request.ts). */
async function pauseOf(promise: Promise<unknown>): Promise<{ request: ConfirmationRequest }> {
  const result = await promise;
  if (isPauseRequest(result)) return { request: result.confirmation };
  throw new Error('expected the run to pause');
}

describe('seed 003: loop safety', () => {
  it('react.loop.max-iterations: stops at max_steps (8) with an error event', async () => {
    const tool = spy('t.search');
    const responses = Array.from({ length: 12 }, (_, index) => call('t.search', { q: `q${index}` }));
    const { result, context } = await react(
      { goal: 'g', tools: ['t.search'], max_steps: 8, max_tool_calls: 20 },
      { responses, actions: [tool.action] },
    );
    expect(context.llmCalls).toHaveLength(8);
    expect(result['total_steps']).toBe(8);
    expect(result['stop_reason']).toBe('max_steps');
    expect(result['final_answer']).toBeNull();
    expect(result['warning']).toContain('Max steps (8)');
    expect(context.events.some((event) => event.type === 'error' && event.data['stop_reason'] === 'max_steps')).toBe(
      true,
    );
  });

  it('react.loop.max-tool-calls: at most 5 executions, later calls refused, then stop reason max_tool_calls', async () => {
    const tool = spy('t.search');
    const responses = Array.from({ length: 12 }, (_, index) => call('t.search', { q: `q${index}` }));
    const { result } = await react(
      { goal: 'g', tools: ['t.search'], max_steps: 12, max_tool_calls: 5 },
      { responses, actions: [tool.action] },
    );
    expect(tool.calls).toHaveLength(5);
    const steps = result['steps'] as Array<Record<string, unknown>>;
    expect(steps[5]!['observation']).toContain('Tool call limit (5) reached');
    expect(result['stop_reason']).toBe('max_tool_calls');
    expect(result['total_steps']).toBe(7);
  });

  it('react.loop.tool-not-found-graceful: unknown tool is an observation, the loop goes on', async () => {
    const { result } = await react(
      { goal: 'g', tools: ['math.calculate'] },
      { responses: [call('web.search', { q: 'x' }), final('ok')] },
    );
    expect(result['error']).toBeUndefined();
    const steps = result['steps'] as Array<Record<string, unknown>>;
    expect(steps[0]!['observation']).toBe('Unknown action: web.search. Available: ["math.calculate","final_answer"]');
    expect(result['final_answer']).toBe('ok');
  });

  it('react.loop.no-tool-calls-is-answer: a response without an action is the final answer', async () => {
    const { result } = await react({ goal: 'g' }, { responses: [json({ thought: 'easy', answer: 'forty-two' })] });
    expect(result['final_answer']).toBe('forty-two');
    const native = await react(
      { goal: 'g', tool_mode: 'native', tools: ['math.calculate'] },
      { responses: [{ content: 'Plain answer.' }] },
    );
    expect(native.result['final_answer']).toBe('Plain answer.');
    expect(native.result['stop_reason']).toBe('final_answer');
  });
});

describe('seed 003: tools, roles and tiers', () => {
  it('react.tools.role-enforcement: a lower role gets access denied and the tool does not run', async () => {
    const tool = spy('admin.tool');
    const tools = [{ name: 'admin.tool', requires_role: 'admin' }];
    const { result } = await react(
      { goal: 'g', tools },
      { role: 'user', responses: [call('admin.tool', { q: 'x' }), final('no')], actions: [tool.action] },
    );
    expect(tool.calls).toHaveLength(0);
    expect((result['steps'] as Array<Record<string, unknown>>)[0]!['observation']).toBe(
      'Access denied: admin.tool requires role admin',
    );
    const allowed = await react(
      { goal: 'g', tools },
      { role: 'admin', responses: [call('admin.tool', { q: 'x' }), final('yes')], actions: [tool.action] },
    );
    expect(tool.calls).toHaveLength(1);
    expect(allowed.result['final_answer']).toBe('yes');
  });

  it('roles: viewer < user < operator < admin; no role means user; an unknown role reaches nothing', async () => {
    const tool = spy('op.tool');
    const tools = [{ name: 'op.tool', requires_role: 'user' }];
    for (const [role, runs] of [
      ['viewer', 0],
      [undefined, 1],
      ['user', 1],
      ['operator', 1],
      ['guest', 0],
    ] as const) {
      tool.calls.length = 0;
      await react(
        { goal: 'g', tools },
        { role, responses: [call('op.tool', { q: 'x' }), final('f')], actions: [tool.action] },
      );
      expect(tool.calls.length, `role ${role}`).toBe(runs);
    }
  });

  it('react.tools.tier1-auto-execute: tier 1 runs on its own with tool_start {autonomous: true}', async () => {
    const tool = spy('t.read');
    const { context } = await react(
      { goal: 'g', tools: [{ name: 't.read', tier: 1 }] },
      { responses: [call('t.read', { q: 'x' }), final('f')], actions: [tool.action] },
    );
    const start = context.events.find((event) => event.type === 'tool_start')!;
    expect(start.data).toMatchObject({ tool: 't.read', autonomous: true, tier: 1, arguments: { q: 'x' } });
    expect(tool.calls).toHaveLength(1);
  });

  it('react.tools.tier3-pauses-loop: tier 3 pauses; approval runs the tool once; denial feeds back "Denied by user"', async () => {
    const tool = spy('t.write');
    const params = { goal: 'g', tools: [{ name: 't.write', tier: 3 }] };
    const first = createTestActionContext({ responses: [call('t.write', { q: 'send' })], actions: [tool.action] });
    const pause = await pauseOf(runAction('reason.react', params, first, [tool.action]));
    expect(pause.request).toMatchObject({ tool: 't.write', arguments: { q: 'send' } });
    expect(tool.calls).toHaveLength(0);

    const approved = createTestActionContext({
      responses: [final('sent')],
      actions: [tool.action],
      resume: { approval: { approved: true }, resume_data: pause.request.resume_data },
    });
    const result = (await runAction('reason.react', params, approved, [tool.action])) as Record<string, unknown>;
    expect(tool.calls).toHaveLength(1);
    expect(result['final_answer']).toBe('sent');
    expect(result['total_steps']).toBe(2);
    expect(approved.llmCalls).toHaveLength(1);

    const denied = createTestActionContext({
      responses: [final('not sent')],
      actions: [tool.action],
      resume: { approval: { approved: false }, resume_data: pause.request.resume_data },
    });
    const deniedResult = (await runAction('reason.react', params, denied, [tool.action])) as Record<string, unknown>;
    expect(tool.calls).toHaveLength(1);
    expect((deniedResult['steps'] as Array<Record<string, unknown>>)[0]!['observation']).toBe('Denied by user');
  });

  it('a resumed run never executes a call twice: calls before the pause are not replayed, and a replayed call is refused', async () => {
    const reader = spy('t.read');
    const writer = spy('t.write');
    const actions = [reader.action, writer.action];
    const params = {
      goal: 'g',
      tool_mode: 'native',
      tools: [
        { name: 't.read', tier: 1 },
        { name: 't.write', tier: 3 },
      ],
    };
    const batch = {
      content: '',
      tool_calls: [
        { id: 'c1', type: 'function' as const, function: { name: 't_read', arguments: '{"q": "a"}' } },
        { id: 'c2', type: 'function' as const, function: { name: 't_write', arguments: '{"q": "b"}' } },
      ],
    };
    const first = createTestActionContext({ responses: [batch], actions });
    const pause = await pauseOf(runAction('reason.react', params, first, actions));
    expect(reader.calls).toHaveLength(1);
    expect(pause.request.call_id).toBe('c2');

    // The model (or a scripted list restarted by the resume) sends the same batch again.
    const resumed = createTestActionContext({
      responses: [batch, { content: 'finished' }],
      actions,
      resume: { approval: { approved: true }, resume_data: pause.request.resume_data },
    });
    const result = (await runAction('reason.react', params, resumed, actions)) as Record<string, unknown>;
    expect(reader.calls).toHaveLength(1);
    expect(writer.calls).toEqual([{ q: 'b' }]);
    const steps = result['steps'] as Array<Record<string, unknown>>;
    expect(steps.filter((step) => step['status'] === 'repeated')).toHaveLength(2);
    expect(result['final_answer']).toBe('finished');
  });

  it('servers that reuse call ids across replies (call_0 every time) still get each distinct call run', async () => {
    const reader = spy('t.read');
    const reply = (q: string) => ({
      tool_calls: [
        { id: 'call_0', type: 'function' as const, function: { name: 't_read', arguments: JSON.stringify({ q }) } },
      ],
    });
    const { result } = await react(
      { goal: 'g', tool_mode: 'native', tools: ['t.read'] },
      { responses: [reply('a'), reply('b'), { content: 'done' }], actions: [reader.action] },
    );
    expect(reader.calls).toEqual([{ q: 'a' }, { q: 'b' }]);
    expect(result['final_answer']).toBe('done');
  });

  it('reason.react cannot be a tool of reason.react: refused at load (issue 12: tools must not widen the table)', async () => {
    await expect(react({ goal: 'g', tools: ['reason.react'] }, { responses: [] })).rejects.toMatchObject({
      code: 'INVALID_PARAMS',
      message: expect.stringContaining('cannot be a tool'),
    });
  });

  it('a tool that itself asks for confirmation is an error observation, not a confused pause', async () => {
    const asking = spy('t.asks', {
      run: (_params, context) =>
        context.requestConfirmation({ tool: 'inner', arguments: {}, call_id: 'x', resume_data: {} }),
    });
    const { result } = await react(
      { goal: 'g', tools: ['t.asks'] },
      { responses: [call('t.asks', { q: 'x' }), final('outer done')], actions: [asking.action] },
    );
    const steps = result['steps'] as Array<Record<string, unknown>>;
    expect(steps[0]!['observation']).toContain('asked for a confirmation');
    expect(result['final_answer']).toBe('outer done');
  });

  it('side-effecting actions default to tier 3; plain actions to tier 1', async () => {
    const tool = spy('t.effect', { sideEffects: true });
    const context = createTestActionContext({ responses: [call('t.effect', { q: 'x' })], actions: [tool.action] });
    await pauseOf(runAction('reason.react', { goal: 'g', tools: ['t.effect'] }, context, [tool.action]));
    expect(tool.calls).toHaveLength(0);
  });
});

describe('seed 003: streaming contract', () => {
  it('react.streaming.event-types and timestamps: thinking, tool_start, tool_result, answer_chunk, answer', async () => {
    const { context } = await react(
      { goal: 'g', tools: ['math.calculate'] },
      { responses: [call('math.calculate', { expression: '2+2' }, 'add'), final(4)] },
    );
    expect(context.events.map((event) => event.type)).toEqual([
      'thinking',
      'tool_start',
      'tool_result',
      'thinking',
      'answer_chunk',
      'answer',
    ]);
    for (const event of context.events) expect(event.ts).toMatch(/Z$/);
    expect(context.events[2]!.data).toMatchObject({
      tool: 'math.calculate',
      status: 'ok',
      observation: '{"result":4}',
    });
    expect(context.events[5]!.data).toMatchObject({ answer: 4 });
  });

  it('react.streaming.ui-context-injection: [UI Context: …] is prepended to the first user message', async () => {
    const { context } = await react(
      { goal: 'Find it', ui_context: { page: 'orders', selected: 42 } },
      { responses: [final('x')] },
    );
    expect(context.llmCalls[0]!.messages![1]!.content).toBe(
      '[UI Context: {"page":"orders","selected":42}]\n\nGoal: Find it',
    );
    const plain = await react({ goal: 'Find it' }, { responses: [final('x')] });
    expect(plain.context.llmCalls[0]!.messages![1]!.content).toBe('Goal: Find it');
  });
});

describe('limits and parsing', () => {
  it('max_steps 0 makes no call; max_steps 1 makes exactly one', async () => {
    const zero = await react({ goal: 'g', max_steps: 0 }, { responses: [final('x')] });
    expect(zero.context.llmCalls).toHaveLength(0);
    expect(zero.result).toMatchObject({ total_steps: 0, final_answer: null, stop_reason: 'max_steps' });
    expect(zero.result['warning']).toBeDefined();
    const one = await react(
      { goal: 'g', max_steps: 1, tools: ['math.calculate'] },
      { responses: [call('math.calculate', { expression: '1+1' }), final('x')] },
    );
    expect(one.context.llmCalls).toHaveLength(1);
    expect(one.result['stop_reason']).toBe('max_steps');
  });

  it('parse failures are recorded as parse_error steps, count as steps, and ask for valid JSON', async () => {
    const { result, context } = await react(
      { goal: 'g', max_steps: 3 },
      { responses: ['I am not sure what to do', final('ok')] },
    );
    const steps = result['steps'] as Array<Record<string, unknown>>;
    expect(steps[0]).toMatchObject({ type: 'parse_error', step: 1, raw: 'I am not sure what to do' });
    expect(result['total_steps']).toBe(2);
    expect(context.llmCalls[1]!.messages!.at(-1)!.content).toContain('not valid JSON');
  });

  it.each(['Final Answer', 'finish', 'final-answer', 'FINAL_ANSWER'])(
    'the small-model spelling %j of final_answer finishes',
    async (action) => {
      const { result } = await react(
        { goal: 'g' },
        { responses: [json({ thought: 't', action, action_input: { answer: 'yes' } })] },
      );
      expect(result).toMatchObject({ final_answer: 'yes', stop_reason: 'final_answer' });
    },
  );

  it('the classic text form (Thought / Action / Action Input) is understood', async () => {
    const { result } = await react(
      { goal: 'g', tools: ['math.calculate'] },
      {
        responses: [
          'Thought: multiply\nAction: math.calculate\nAction Input: {"expression": "6*7"}',
          'Thought: done\nFinal Answer: 42',
        ],
      },
    );
    expect((result['steps'] as Array<Record<string, unknown>>)[0]!['observation']).toBe('{"result":42}');
    expect(result['final_answer']).toBe('42');
  });

  it('a repeated identical call is reported, not executed again', async () => {
    const tool = spy('t.search');
    const { result } = await react(
      { goal: 'g', tools: ['t.search'] },
      {
        responses: [call('t.search', { q: 'same' }), call('t.search', { q: 'same' }), final('f')],
        actions: [tool.action],
      },
    );
    expect(tool.calls).toHaveLength(1);
    expect((result['steps'] as Array<Record<string, unknown>>)[1]!['observation']).toContain('Repeated call');
  });

  it('arguments that fail the tool schema are an observation; the tool does not run', async () => {
    const { result } = await react(
      { goal: 'g', tools: ['math.calculate'] },
      { responses: [call('math.calculate', { expr: '1+1' }), final('f')] },
    );
    expect((result['steps'] as Array<Record<string, unknown>>)[0]!['observation']).toContain(
      'Invalid arguments for math.calculate',
    );
  });

  it('a bare string input fills the single required parameter', async () => {
    const { result } = await react(
      { goal: 'g', tools: ['math.calculate'] },
      { responses: [call('math.calculate', '6*7'), final('f')] },
    );
    expect((result['steps'] as Array<Record<string, unknown>>)[0]!['observation']).toBe('{"result":42}');
  });

  it('arguments written as a JSON string are parsed', async () => {
    const { result } = await react(
      { goal: 'g', tools: ['math.calculate'] },
      { responses: [call('math.calculate', '{"expression": "2**10"}'), final('f')] },
    );
    expect((result['steps'] as Array<Record<string, unknown>>)[0]!['observation']).toBe('{"result":1024}');
  });

  it('tool errors are observations "Error executing …"', async () => {
    const { result } = await react(
      { goal: 'g', tools: ['math.calculate'] },
      { responses: [call('math.calculate', { expression: '1/0' }), final('f')] },
    );
    expect((result['steps'] as Array<Record<string, unknown>>)[0]!['observation']).toMatch(
      /^Error executing math.calculate: .*division by zero/,
    );
  });

  it('on_limit: final_answer makes one tools-off call for the best answer', async () => {
    const tool = spy('t.search');
    const { result, context } = await react(
      { goal: 'g', tools: ['t.search'], max_steps: 2, on_limit: 'final_answer' },
      {
        responses: [call('t.search', { q: '1' }), call('t.search', { q: '2' }), final('best guess')],
        actions: [tool.action],
      },
    );
    expect(context.llmCalls).toHaveLength(3);
    expect(context.llmCalls[2]!.tools).toBeUndefined();
    expect(result).toMatchObject({ final_answer: 'best guess', stop_reason: 'max_steps', forced_final_answer: true });
  });

  it('on_limit: final_answer in native mode: tool_choice none, and a plain-text reply is the answer', async () => {
    const tool = spy('t.search');
    const toolCall = (q: string) => ({
      tool_calls: [
        { id: q, type: 'function' as const, function: { name: 't_search', arguments: JSON.stringify({ q }) } },
      ],
    });
    const { result, context } = await react(
      { goal: 'g', tool_mode: 'native', tools: ['t.search'], max_steps: 1, on_limit: 'final_answer' },
      { responses: [toolCall('a'), { content: 'My best answer.' }], actions: [tool.action] },
    );
    expect(context.llmCalls[1]!.tool_choice).toBe('none');
    expect(result).toMatchObject({
      final_answer: 'My best answer.',
      forced_final_answer: true,
      stop_reason: 'max_steps',
    });
  });

  it('observations are capped in size', async () => {
    const big = spy('t.big', { run: () => 'x'.repeat(50_000) });
    const { result } = await react(
      { goal: 'g', tools: ['t.big'] },
      { responses: [call('t.big', {}), final('f')], actions: [big.action] },
    );
    expect(((result['steps'] as Array<Record<string, unknown>>)[0]!['observation'] as string).length).toBeLessThan(
      8100,
    );
  });
});

describe('tool modes', () => {
  it('native: tools are sent with wire names and JSON Schema; calls run; final_answer tool ends', async () => {
    const { result, context } = await react(
      { goal: 'g', tool_mode: 'native', tools: ['math.calculate'] },
      {
        responses: [
          {
            tool_calls: [
              { id: 'a', type: 'function', function: { name: 'math_calculate', arguments: '{"expression": "3*3"}' } },
            ],
          },
          {
            tool_calls: [{ id: 'b', type: 'function', function: { name: 'final_answer', arguments: '{"answer": 9}' } }],
          },
        ],
      },
    );
    const sent = context.llmCalls[0]!.tools!.map((tool) => tool.function.name);
    expect(sent).toEqual(['math_calculate', 'final_answer']);
    expect(context.llmCalls[0]!.tools![0]!.function.parameters).toMatchObject({ required: ['expression'] });
    expect(context.llmCalls[1]!.messages!.at(-1)).toMatchObject({
      role: 'tool',
      tool_call_id: 'a',
      content: '{"result":9}',
    });
    expect(result).toMatchObject({ final_answer: 9, stop_reason: 'final_answer', tool_mode: 'native' });
  });

  it('native: a JSON action written in the content (dotted name) is understood too', async () => {
    const { result } = await react(
      { goal: 'g', tool_mode: 'native', tools: ['math.calculate'] },
      { responses: [{ content: call('math.calculate', { expression: '5*5' }) }, { content: 'It is 25.' }] },
    );
    expect((result['steps'] as Array<Record<string, unknown>>)[0]!['observation']).toBe('{"result":25}');
    expect(result['final_answer']).toBe('It is 25.');
  });

  it('auto: native tool calls keep native mode', async () => {
    const { result } = await react(
      { goal: 'g', tool_mode: 'auto', tools: ['math.calculate'] },
      {
        responses: [
          {
            tool_calls: [
              { id: 'a', type: 'function', function: { name: 'math_calculate', arguments: '{"expression": "1+1"}' } },
            ],
          },
          { content: 'It is 2.' },
        ],
      },
    );
    expect(result).toMatchObject({ tool_mode: 'native', final_answer: 'It is 2.' });
  });

  it('auto: a JSON reply switches to JSON mode', async () => {
    const { result, context } = await react(
      { goal: 'g', tool_mode: 'auto', tools: ['math.calculate'] },
      { responses: [call('math.calculate', { expression: '2*2' }), final(4)] },
    );
    expect(result).toMatchObject({ tool_mode: 'json', final_answer: 4 });
    expect(context.llmCalls[1]!.tools).toBeUndefined();
  });

  it('auto: an endpoint refusing tools (HTTP 400) falls back to JSON mode without losing a step', async () => {
    const { result, context } = await react(
      { goal: 'g', tool_mode: 'auto', max_steps: 1 },
      { responses: [new AgentError('LLM_HTTP_400', 'tools not supported'), final('ok')] },
    );
    expect(context.llmCalls).toHaveLength(2);
    expect(result).toMatchObject({ tool_mode: 'json', final_answer: 'ok', total_steps: 1 });
  });
});
