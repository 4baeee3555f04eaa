/**
 * TEA's python/tests/test_reasoning_actions.py, row by row (reference/tea-behaviour.md §6.2),
 * against the fake context. Rows 37–43 (DSPy) do not apply: tea-edge has no reason.dspy.* actions.
 * Row 36 (registry without llm.call) maps to "the model is unavailable": callLlm is a context seam.
 * Rows 4, 14, 21, 26, 27 and 36 differ from TEA on purpose (issue 10): a model call that fails
 * (server down, HTTP error, timeout) ends the action with its typed error instead of becoming a
 * `{success: false}` result, so the node's `on_error` decides; content failures stay results.
 */
import { describe, expect, it } from 'vitest';
import { AgentError } from '../../src/core/agent-error.js';
import type { ActionDefinition } from '../../src/core/action.js';
import { reasoningActions } from '../../src/reasoning/actions.js';
import { createActionRegistry } from '../../src/builtins.js';
import { runAction } from './fake-context.js';
import { createTestActionContext } from '../../src/testing/test-action-context.js';

const json = (value: unknown) => JSON.stringify(value);
const llmError = (message: string) => new AgentError('LLM_UNAVAILABLE', message);

function spyTool(
  name: string,
  behaviour: (params: Record<string, unknown>) => unknown = () => ({ result: 'tool output' }),
) {
  const calls: Array<Record<string, unknown>> = [];
  const action: ActionDefinition = {
    name,
    description: `Spy tool ${name}`,
    parameters: { type: 'object', properties: { query: { type: 'string' } } },
    run(params) {
      calls.push(params);
      return behaviour(params);
    },
  };
  return { action, calls };
}

describe('reason.cot (TEA rows 1–8)', () => {
  it('1 test_cot_basic_success', async () => {
    const context = createTestActionContext({
      responses: [json({ thinking: 'Step 1: Identify components. Step 2: Calculate result.', answer: '42' })],
    });
    const result = await runAction('reason.cot', { problem: 'What is 6*7?', model: 'gpt-4' }, context);
    expect(result['thinking']).toBe('Step 1: Identify components. Step 2: Calculate result.');
    expect(result['answer']).toBe('42');
    expect(result['reasoning_trace']).toBeDefined();
    expect(result['model']).toBe('gpt-4');
    expect(result['thinking_format']).toBe('step_by_step');
  });

  it.each(['step_by_step', 'pros_cons', 'tree', 'first_principles'])(
    '2 test_cot_different_thinking_formats: %s',
    async (format) => {
      const context = createTestActionContext({ responses: [json({ thinking: 't', answer: 'a' })] });
      const result = await runAction('reason.cot', { problem: 'p', thinking_format: format }, context);
      expect(result['thinking_format']).toBe(format);
      expect(result['error']).toBeUndefined();
    },
  );

  it('3 test_cot_with_few_shot_examples', async () => {
    const context = createTestActionContext({ responses: [json({ thinking: 't', answer: '16' })] });
    const result = await runAction(
      'reason.cot',
      {
        problem: 'What is 4*4?',
        few_shot_examples: [
          { problem: 'What is 2+2?', thinking: 'add', answer: '4' },
          { problem: 'What is 3*3?', thinking: 'multiply', answer: '9' },
        ],
      },
      context,
    );
    expect(result['answer']).toBe('16');
    const system = context.llmCalls[0]!.messages![0]!.content!;
    expect(system).toContain('Example 1:');
    expect(system).toContain('What is 2+2?');
    expect(system).toContain('Example 2:');
  });

  it('4 test_cot_llm_error', async () => {
    await expect(
      runAction(
        'reason.cot',
        { problem: 'p' },
        createTestActionContext({ responses: [llmError('API rate limit exceeded')] }),
      ),
    ).rejects.toMatchObject({ code: 'LLM_UNAVAILABLE', message: 'API rate limit exceeded' });
  });

  it('5 test_cot_malformed_json_response', async () => {
    const result = await runAction(
      'reason.cot',
      { problem: 'p' },
      createTestActionContext({ responses: ['This is not valid JSON'] }),
    );
    expect(result['error']).toContain('This is not valid JSON');
    expect(result['success']).toBe(false);
  });

  it('6 test_cot_json_in_markdown_block', async () => {
    const context = createTestActionContext({
      responses: ['```json\n{"thinking": "Step by step", "answer": "result"}\n```'],
    });
    const result = await runAction('reason.cot', { problem: 'p' }, context);
    expect(result['error']).toBeUndefined();
    expect(result['thinking']).toBe('Step by step');
    expect(result['answer']).toBe('result');
  });

  it('7 test_cot_trace_format', async () => {
    const result = await runAction(
      'reason.cot',
      { problem: 'p' },
      createTestActionContext({ responses: [json({ thinking: 't', answer: 'a' })] }),
    );
    const trace = result['reasoning_trace'] as Array<Record<string, unknown>>;
    expect(trace.length).toBeGreaterThan(0);
    for (const entry of trace) {
      expect(entry).toHaveProperty('step');
      expect(entry).toHaveProperty('timestamp');
    }
  });

  it('8 test_cot_state_variables', async () => {
    const result = await runAction(
      'reason.cot',
      { problem: 'p' },
      createTestActionContext({ responses: [json({ thinking: 'my thinking', answer: 'my answer' })] }),
    );
    expect(result['reasoning_thinking']).toBe('my thinking');
    expect(result['reasoning_answer']).toBe('my answer');
  });
});

describe('reason.react (TEA rows 9–16)', () => {
  it('9 test_react_basic_final_answer', async () => {
    const context = createTestActionContext({
      responses: [
        json({ thought: 'I know', action: 'final_answer', action_input: { answer: 'Paris is the capital of France' } }),
      ],
    });
    const result = await runAction('reason.react', { goal: 'Capital of France?' }, context);
    expect(result['error']).toBeUndefined();
    expect(result['final_answer']).toBe('Paris is the capital of France');
    expect(result['total_steps']).toBe(1);
    expect(result['steps']).toBeDefined();
    expect(result['reasoning_trace']).toBeDefined();
  });

  it('10 test_react_tool_execution', async () => {
    const search = spyTool('test.search');
    const context = createTestActionContext({
      actions: [search.action],
      responses: [
        json({ thought: 'search', action: 'test.search', action_input: { query: 'weather paris' } }),
        json({ thought: 'done', action: 'final_answer', action_input: { answer: "It's sunny in Paris" } }),
      ],
    });
    const result = await runAction('reason.react', { goal: 'weather?', tools: ['test.search'] }, context, [
      search.action,
    ]);
    expect(result['total_steps']).toBe(2);
    expect(search.calls).toEqual([{ query: 'weather paris' }]);
    expect(result['final_answer']).toBe("It's sunny in Paris");
  });

  it('11 test_react_max_steps_limit', async () => {
    const search = spyTool('test.search');
    const context = createTestActionContext({
      actions: [search.action],
      responses: [1, 2, 3].map((n) => json({ thought: 't', action: 'test.search', action_input: { query: `q${n}` } })),
    });
    const result = await runAction('reason.react', { goal: 'g', tools: ['test.search'], max_steps: 3 }, context, [
      search.action,
    ]);
    expect(result['total_steps']).toBe(3);
    expect(result['warning']).toBeDefined();
    expect(result['final_answer']).toBeNull();
    expect(result['steps']).toHaveLength(3);
  });

  it('12 test_react_unknown_tool', async () => {
    const search = spyTool('test.search');
    const context = createTestActionContext({
      actions: [search.action],
      responses: [
        json({ thought: 't', action: 'unknown.tool', action_input: {} }),
        json({ action: 'final_answer', action_input: { answer: 'x' } }),
      ],
    });
    const result = await runAction('reason.react', { goal: 'g', tools: ['test.search'] }, context, [search.action]);
    expect(result['error']).toBeUndefined();
    expect((result['steps'] as Array<Record<string, string>>)[0]!['observation']).toContain('Unknown action');
  });

  it('13 test_react_tool_error', async () => {
    const crash = spyTool('test.search', () => {
      throw new Error('Tool crashed');
    });
    const context = createTestActionContext({
      actions: [crash.action],
      responses: [
        json({ action: 'test.search', action_input: { query: 'x' } }),
        json({ action: 'final_answer', action_input: { answer: 'x' } }),
      ],
    });
    const result = await runAction('reason.react', { goal: 'g', tools: ['test.search'] }, context, [crash.action]);
    expect(result['error']).toBeUndefined();
    expect((result['steps'] as Array<Record<string, string>>)[0]!['observation']).toContain('Error executing');
  });

  it('14 test_react_llm_error', async () => {
    await expect(
      runAction('reason.react', { goal: 'g' }, createTestActionContext({ responses: [llmError('API error')] })),
    ).rejects.toMatchObject({ code: 'LLM_UNAVAILABLE', message: 'API error' });
  });

  it('15 test_react_steps_trace', async () => {
    const result = await runAction(
      'reason.react',
      { goal: 'g' },
      createTestActionContext({
        responses: [json({ thought: 't', action: 'final_answer', action_input: { answer: 'a' } })],
      }),
    );
    const steps = result['steps'] as Array<Record<string, unknown>>;
    expect(steps).toHaveLength(1);
    for (const key of ['step', 'thought', 'action', 'action_input', 'observation'])
      expect(steps[0]).toHaveProperty(key);
  });

  it('16 test_react_state_variables', async () => {
    const result = await runAction(
      'reason.react',
      { goal: 'g' },
      createTestActionContext({
        responses: [json({ action: 'final_answer', action_input: { answer: 'The answer' } })],
      }),
    );
    expect(result['react_steps']).toEqual(result['steps']);
    expect(result['reasoning_answer']).toBe('The answer');
  });
});

describe('reason.self_correct (TEA rows 17–21)', () => {
  it('17 test_self_correct_basic', async () => {
    const context = createTestActionContext({
      responses: [
        json({ output: 'Initial draft', confidence: 0.6, potential_issues: ['short'] }),
        json({ issues: ['lacks detail'], improved_output: 'Improved draft with details', improvement_score: 0.8 }),
        json({ improved_output: 'Final polished draft', improvement_score: 0.95 }),
      ],
    });
    const result = await runAction('reason.self_correct', { task: 'write', improvement_rounds: 2 }, context);
    expect(result['output']).toBe('Final polished draft');
    expect(result['rounds_completed']).toBe(2);
    expect(result['improvement_history']).toHaveLength(3);
  });

  it('18 test_self_correct_different_models', async () => {
    const context = createTestActionContext({ responses: [json({ output: 'a' }), json({ improved_output: 'b' })] });
    const result = await runAction(
      'reason.self_correct',
      { task: 't', generator_model: 'gpt-4', critic_model: 'gpt-3.5-turbo', improvement_rounds: 1 },
      context,
    );
    expect(result['generator_model']).toBe('gpt-4');
    expect(result['critic_model']).toBe('gpt-3.5-turbo');
    expect(context.llmCalls[0]!.model).toBe('gpt-4');
    expect(context.llmCalls[1]!.model).toBe('gpt-3.5-turbo');
  });

  it('19 test_self_correct_custom_critic_prompt', async () => {
    const context = createTestActionContext({ responses: [json({ output: 'a' }), json({ improved_output: 'b' })] });
    await runAction(
      'reason.self_correct',
      { task: 't', critic_prompt: 'Focus on security issues and best practices', improvement_rounds: 1 },
      context,
    );
    expect(context.llmCalls[1]!.messages![0]!.content).toContain('Focus on security');
  });

  it('20 test_self_correct_improvement_history', async () => {
    const context = createTestActionContext({
      responses: [json({ output: 'V1' }), json({ improved_output: 'V2' }), json({ improved_output: 'V3' })],
    });
    const result = await runAction('reason.self_correct', { task: 't', improvement_rounds: 2 }, context);
    const history = result['improvement_history'] as Array<Record<string, unknown>>;
    expect(history).toHaveLength(3);
    expect(history[0]).toMatchObject({ type: 'initial', output: 'V1' });
    expect(history[1]).toMatchObject({ type: 'improvement', output: 'V2' });
    expect(history[2]!['output']).toBe('V3');
  });

  it('21 test_self_correct_llm_error', async () => {
    await expect(
      runAction('reason.self_correct', { task: 't' }, createTestActionContext({ responses: [llmError('down')] })),
    ).rejects.toMatchObject({ code: 'LLM_UNAVAILABLE' });
  });
});

const decomposition = (subs: unknown[]) => json({ analysis: 'a', sub_problems: subs, synthesis_strategy: 'combine' });

describe('reason.decompose (TEA rows 22–27)', () => {
  it('22 test_decompose_basic', async () => {
    const context = createTestActionContext({
      responses: [
        decomposition([
          { id: 1, description: 'first', dependencies: [] },
          { id: 2, description: 'second', dependencies: [1] },
        ]),
        json({ reasoning: 'r', answer: 'Answer 1', confidence: 0.9 }),
        json({ reasoning: 'r', answer: 'Answer 2', confidence: 0.9 }),
        json({ reasoning: 'r', final_answer: 'Combined answer', confidence: 0.9 }),
      ],
    });
    const result = await runAction('reason.decompose', { problem: 'p' }, context);
    expect(result['sub_problems']).toHaveLength(2);
    expect(result['sub_answers']).toHaveLength(2);
    expect(result['final_answer']).toBe('Combined answer');
    expect(result['reasoning_trace']).toBeDefined();
  });

  it('23 test_decompose_max_depth_limit', async () => {
    const context = createTestActionContext({
      responses: [decomposition([{ id: 1, description: 'only' }]), json({ answer: 'x' }), json({ final_answer: 'y' })],
    });
    const result = await runAction('reason.decompose', { problem: 'p', max_depth: 1 }, context);
    expect(result['error']).toBeUndefined();
    expect(result['depth_used']).toBe(0);
  });

  it('24 test_decompose_with_dependencies', async () => {
    const context = createTestActionContext({
      responses: [
        decomposition([
          { id: 1, description: 'Calculate A', dependencies: [] },
          { id: 2, description: 'Use A to calculate B', dependencies: [1] },
        ]),
        json({ answer: '10' }),
        json({ answer: '20' }),
        json({ final_answer: '20' }),
      ],
    });
    await runAction('reason.decompose', { problem: 'p' }, context);
    expect(context.llmCalls[2]!.messages![1]!.content).toContain('Sub-answer 1');
    expect(context.llmCalls[2]!.messages![1]!.content).toContain('Sub-answer 1: 10');
  });

  it('25 test_decompose_synthesis_prompt', async () => {
    const context = createTestActionContext({
      responses: [decomposition([{ id: 1, description: 'd' }]), json({ answer: 'x' }), json({ final_answer: 'y' })],
    });
    await runAction(
      'reason.decompose',
      { problem: 'p', synthesis_prompt: 'Use this custom synthesis approach' },
      context,
    );
    expect(context.llmCalls[2]!.messages![0]!.content).toContain('Use this custom synthesis approach');
  });

  it('26 test_decompose_sub_problem_error', async () => {
    const context = createTestActionContext({
      responses: [
        decomposition([
          { id: 1, description: 'a' },
          { id: 2, description: 'b' },
        ]),
        llmError('sub failed'),
        json({ answer: 'ok' }),
        json({ final_answer: 'f' }),
      ],
    });
    await expect(runAction('reason.decompose', { problem: 'p' }, context)).rejects.toMatchObject({
      code: 'LLM_UNAVAILABLE',
      message: 'sub failed',
    });
  });

  it('27 test_decompose_llm_error', async () => {
    await expect(
      runAction('reason.decompose', { problem: 'p' }, createTestActionContext({ responses: [llmError('down')] })),
    ).rejects.toMatchObject({ code: 'LLM_UNAVAILABLE' });
  });
});

describe('registration, traces, edge cases (TEA rows 28–36, 44–47)', () => {
  it('28 test_all_actions_registered', () => {
    const names = reasoningActions().map((action) => action.name);
    for (const name of ['reason.cot', 'reason.react', 'reason.self_correct', 'reason.decompose'])
      expect(names).toContain(name);
    for (const action of reasoningActions()) expect(typeof action.run).toBe('function');
  });

  it('29 test_alias_registration (through the registry: actions.reason_* resolve to reason.*)', () => {
    const registry = createActionRegistry();
    for (const name of ['cot', 'react', 'self_correct', 'decompose'])
      expect(registry.get(`actions.reason_${name}`)?.name).toBe(`reason.${name}`);
    for (const name of ['memory.store', 'memory.retrieve', 'math.calculate', 'json.query', 'http.get'])
      expect(registry.get(name)?.name).toBe(name);
  });

  it.each(['30 test_trace_has_timestamps', '31 test_trace_has_step_identifiers', '32 test_trace_serializable'])(
    '%s',
    async () => {
      const result = await runAction(
        'reason.cot',
        { problem: 'p' },
        createTestActionContext({ responses: [json({ thinking: 't', answer: 'a' })] }),
      );
      const trace = result['reasoning_trace'] as Array<Record<string, unknown>>;
      for (const entry of trace) {
        expect(typeof entry['timestamp']).toBe('number');
        expect(entry['step']).toBeDefined();
      }
      expect(JSON.parse(JSON.stringify(trace))).toEqual(trace);
    },
  );

  it('33 test_empty_problem', async () => {
    const result = await runAction(
      'reason.cot',
      { problem: '' },
      createTestActionContext({ responses: [json({ thinking: 't', answer: 'a' })] }),
    );
    expect(result['error']).toBeUndefined();
  });

  it('34 test_unicode_in_problem', async () => {
    const result = await runAction(
      'reason.cot',
      { problem: 'Où est le Café?' },
      createTestActionContext({ responses: [json({ thinking: 't', answer: 'Le Café ☕' })] }),
    );
    expect(result['answer']).toBe('Le Café ☕');
  });

  it('35 test_very_long_response', async () => {
    const thinking = 'x'.repeat(10_000);
    const result = await runAction(
      'reason.cot',
      { problem: 'p' },
      createTestActionContext({ responses: [json({ thinking, answer: 'a' })] }),
    );
    expect((result['thinking'] as string).length).toBe(10_000);
  });

  it('36 test_missing_llm_call_action (as: the model is unavailable)', async () => {
    await expect(
      runAction('reason.cot', { problem: 'p' }, createTestActionContext({ responses: [] })),
    ).rejects.toMatchObject({ code: 'LLM_UNAVAILABLE', message: expect.stringContaining('exhausted') });
  });

  it('44 test_cot_output_schema', async () => {
    const result = await runAction(
      'reason.cot',
      { problem: 'p' },
      createTestActionContext({ responses: [json({ thinking: 't', answer: 'a' })] }),
    );
    for (const key of ['thinking', 'answer', 'reasoning_trace', 'model', 'reasoning_thinking', 'reasoning_answer'])
      expect(result).toHaveProperty(key);
  });

  it('45 test_react_output_schema', async () => {
    const result = await runAction(
      'reason.react',
      { goal: 'g' },
      createTestActionContext({ responses: [json({ action: 'final_answer', action_input: { answer: 'a' } })] }),
    );
    for (const key of [
      'steps',
      'final_answer',
      'reasoning_trace',
      'react_steps',
      'total_steps',
      'stop_reason',
      'model',
    ])
      expect(result).toHaveProperty(key);
  });

  it('46 test_self_correct_output_schema', async () => {
    const result = await runAction(
      'reason.self_correct',
      { task: 't', improvement_rounds: 1 },
      createTestActionContext({ responses: [json({ output: 'a' }), json({ improved_output: 'b' })] }),
    );
    for (const key of ['output', 'improvement_history', 'reasoning_trace', 'rounds_completed'])
      expect(result).toHaveProperty(key);
  });

  it('47 test_decompose_output_schema', async () => {
    const result = await runAction(
      'reason.decompose',
      { problem: 'p' },
      createTestActionContext({
        responses: [decomposition([{ id: 1, description: 'd' }]), json({ answer: 'x' }), json({ final_answer: 'y' })],
      }),
    );
    for (const key of [
      'sub_problems',
      'sub_answers',
      'final_answer',
      'reasoning_trace',
      'depth_used',
      'synthesis_reasoning',
    ])
      expect(result).toHaveProperty(key);
  });
});
