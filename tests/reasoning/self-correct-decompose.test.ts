/** reason.self_correct and reason.decompose beyond TEA's rows: honesty about rounds, concurrency, cycles, recursion. */
import { describe, expect, it } from 'vitest';
import { AgentError } from '../../src/core/agent-error.js';
import type { LlmCallParams } from '../../src/core/action.js';
import { runAction } from './fake-context.js';
import { createTestActionContext } from '../../src/testing/test-action-context.js';
import { orderSubProblems } from '../../src/reasoning/sub-problems.js';

const json = (value: unknown) => JSON.stringify(value);

describe('reason.self_correct', () => {
  it('an unparseable round is recorded and skipped; rounds_completed tells the truth', async () => {
    const context = createTestActionContext({
      responses: [json({ output: 'V1' }), 'not json at all', json({ improved_output: 'V2', improvement_score: 0.9 })],
    });
    const result = await runAction('reason.self_correct', { task: 't', improvement_rounds: 2 }, context);
    expect(result['rounds_completed']).toBe(1);
    expect(result['rounds_requested']).toBe(2);
    expect(result['output']).toBe('V2');
    expect((result['skipped_rounds'] as Array<Record<string, unknown>>).map((entry) => entry['round'])).toEqual([1]);
    const steps = (result['reasoning_trace'] as Array<Record<string, unknown>>).map((entry) => entry['step']);
    expect(steps).toContain('critique_round_1_parse_error');
    expect(result['improvement_history']).toHaveLength(2);
  });

  it('a critic call that times out ends the action with LLM_TIMEOUT (infrastructure, not a skipped round)', async () => {
    const context = createTestActionContext({
      responses: [json({ output: 'V1' }), new AgentError('LLM_TIMEOUT', 'slow'), json({ improved_output: 'V2' })],
    });
    await expect(runAction('reason.self_correct', { task: 't', improvement_rounds: 2 }, context)).rejects.toMatchObject(
      { code: 'LLM_TIMEOUT' },
    );
    expect(context.llmCalls).toHaveLength(2);
  });

  it('non-string outputs work (objects and lists) and reach the critic as JSON', async () => {
    const context = createTestActionContext({
      responses: [
        json({ output: { title: 'Tea', tags: ['drink'] } }),
        json({ improved_output: { title: 'Tea', tags: ['drink', 'leaf'] } }),
      ],
    });
    const result = await runAction('reason.self_correct', { task: 't', improvement_rounds: 1 }, context);
    expect(result['output']).toEqual({ title: 'Tea', tags: ['drink', 'leaf'] });
    expect(context.llmCalls[1]!.messages![1]!.content).toContain('{"title":"Tea","tags":["drink"]}');
  });

  it('an unparseable first draft is kept as raw text; zero rounds returns it', async () => {
    const result = await runAction(
      'reason.self_correct',
      { task: 't', improvement_rounds: 0 },
      createTestActionContext({ responses: ['Just a plain draft.'] }),
    );
    expect(result).toMatchObject({ output: 'Just a plain draft.', rounds_completed: 0 });
  });
});

describe('reason.decompose', () => {
  const plan = (subs: unknown[]) => json({ analysis: 'a', sub_problems: subs, synthesis_strategy: 's' });

  it('independent sub-problems run concurrently, bounded by max_concurrency', async () => {
    let active = 0;
    let peak = 0;
    const slow = async (answer: string) => {
      active++;
      peak = Math.max(peak, active);
      await new Promise((resolve) => setTimeout(resolve, 5));
      active--;
      return json({ answer });
    };
    const subs = [1, 2, 3, 4, 5].map((id) => ({ id, description: `part ${id}`, dependencies: [] }));
    const context = createTestActionContext({ responses: [plan(subs), json({ final_answer: 'all' })] });
    const callLlm = context.callLlm.bind(context);
    let calls = 0;
    (context as { callLlm: typeof context.callLlm }).callLlm = async (params: LlmCallParams) => {
      calls++;
      const user = params.messages?.[1]?.content ?? '';
      if (user.includes('Sub-problem:'))
        return {
          content: await slow(user.split('Sub-problem: ')[1]!),
          usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
          model: 'm',
          finish_reason: 'stop',
        };
      return callLlm(params);
    };
    const result = await runAction('reason.decompose', { problem: 'p', max_concurrency: 2 }, context);
    expect(calls).toBe(7);
    expect(peak).toBe(2);
    expect((result['sub_answers'] as Array<Record<string, unknown>>).map((entry) => entry['answer'])).toEqual([
      'part 1',
      'part 2',
      'part 3',
      'part 4',
      'part 5',
    ]);
  });

  it('a dependency cycle is an error; nothing is solved', async () => {
    const context = createTestActionContext({
      responses: [
        plan([
          { id: 1, description: 'a', dependencies: [2] },
          { id: 2, description: 'b', dependencies: [1] },
        ]),
      ],
    });
    const result = await runAction('reason.decompose', { problem: 'p' }, context);
    expect(result['success']).toBe(false);
    expect(result['error']).toContain('Dependency cycle');
    expect(context.llmCalls).toHaveLength(1);
  });

  it('orders, defaults ids, drops unknown dependencies, refuses duplicates and self-loops', () => {
    const ordered = orderSubProblems([{ description: 'a' }, { description: 'b', dependencies: [1, 99] }]);
    expect(ordered.ok && ordered.subProblems.map((entry) => [entry.key, entry.dependencies])).toEqual([
      ['1', []],
      ['2', ['1']],
    ]);
    expect(ordered.ok && ordered.notes[0]).toContain('99');
    expect(orderSubProblems([{ id: 1 }, { id: 1 }]).ok).toBe(false);
    expect(orderSubProblems([{ id: 1, dependencies: [1] }]).ok).toBe(false);
  });

  it('a failed dependency is passed on as such; the dependent still runs', async () => {
    const context = createTestActionContext({
      responses: [
        plan([
          { id: 1, description: 'a', decompose: true },
          { id: 2, description: 'b', dependencies: [1] },
        ]),
        'no plan here, just words',
        json({ answer: 'b done' }),
        json({ final_answer: 'f' }),
      ],
    });
    const result = await runAction('reason.decompose', { problem: 'p' }, context);
    expect(context.llmCalls[2]!.messages![1]!.content).toContain('Sub-answer 1: (failed:');
    expect((result['sub_answers'] as Array<Record<string, unknown>>)[1]!['answer']).toBe('b done');
  });

  it('a sub-problem whose model call times out ends the action with LLM_TIMEOUT', async () => {
    const context = createTestActionContext({
      responses: [
        plan([
          { id: 1, description: 'a' },
          { id: 2, description: 'b', dependencies: [1] },
        ]),
        new AgentError('LLM_TIMEOUT', 'slow'),
        json({ answer: 'b done' }),
        json({ final_answer: 'f' }),
      ],
    });
    await expect(runAction('reason.decompose', { problem: 'p' }, context)).rejects.toMatchObject({
      code: 'LLM_TIMEOUT',
    });
    expect(context.llmCalls).toHaveLength(2);
  });

  it('decompose: true recurses while depth < max_depth, and depth_used says how deep it went', async () => {
    const context = createTestActionContext({
      responses: [
        plan([{ id: 1, description: 'big part', decompose: true }]),
        plan([{ id: 'x', description: 'small part' }]),
        json({ answer: 'small answer' }),
        json({ final_answer: 'big answer' }),
        json({ final_answer: 'whole answer' }),
      ],
    });
    const result = await runAction('reason.decompose', { problem: 'p', max_depth: 2 }, context);
    expect(result['depth_used']).toBe(1);
    expect(result['final_answer']).toBe('whole answer');
    const sub = (result['sub_answers'] as Array<Record<string, unknown>>)[0]!;
    expect(sub['answer']).toBe('big answer');
    expect((sub['decomposition'] as Record<string, unknown>)['sub_answers']).toEqual([
      expect.objectContaining({ id: 'x', answer: 'small answer' }),
    ]);
  });

  it('at max_depth 0 a sub-problem marked decompose is solved directly', async () => {
    const context = createTestActionContext({
      responses: [
        plan([{ id: 1, description: 'big', decompose: true }]),
        json({ answer: 'direct' }),
        json({ final_answer: 'f' }),
      ],
    });
    const result = await runAction('reason.decompose', { problem: 'p', max_depth: 0 }, context);
    expect(result['depth_used']).toBe(0);
    expect((result['sub_answers'] as Array<Record<string, unknown>>)[0]!['answer']).toBe('direct');
  });
});

describe('reason.cot with the replies of small and reasoning models', () => {
  it.each([
    [
      'thinking tags then a number',
      '<thinking>Step 1: 15% is 0.15. Step 2: 0.15 x 240 = 36.</thinking>\n36',
      'Step 1: 15% is 0.15. Step 2: 0.15 x 240 = 36.',
      36,
    ],
    [
      'a reasoning model <think> block before the JSON',
      '<think>The user wants a percentage.</think>\n{"thinking": "0.15 x 240", "answer": 36}',
      '0.15 x 240',
      36,
    ],
    ['<think> block and a JSON object without thinking', '<think>quick</think>{"answer": "36"}', 'quick', '36'],
    ['single quotes and a trailing comma', "{'thinking': 'multiply', 'answer': 36,}", 'multiply', 36],
    ['prose around a fence', 'Here you go:\n```\n{"thinking": "t", "answer": [1, 2]}\n```\nDone.', 't', [1, 2]],
    [
      'an object answer',
      '{"thinking": "t", "answer": {"value": 36, "unit": "items"}}',
      't',
      { value: 36, unit: 'items' },
    ],
  ])('%s', async (_name, reply, thinking, answer) => {
    const result = await runAction(
      'reason.cot',
      { problem: 'What is 15% of 240?' },
      createTestActionContext({ responses: [reply] }),
    );
    expect(result['thinking']).toBe(thinking);
    expect(result['answer']).toEqual(answer);
  });

  it('a templated thinking_format that renders to an unknown name is an error value, not a crash', async () => {
    const context = createTestActionContext({ state: { format: 'vibes' }, responses: [] });
    const result = await runAction('reason.cot', { problem: 'p', thinking_format: '{{ state.format }}' }, context);
    expect(result).toMatchObject({ success: false });
    expect(result['error']).toContain('vibes');
    expect(context.llmCalls).toHaveLength(0);
  });
});

describe('reason.decompose and control flow', () => {
  it('a budget error in one concurrent sub-problem ends the action once, with no unhandled rejection', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const budget = () => new AgentError('BUDGET_EXCEEDED', 'max_llm_calls reached');
      const subs = [1, 2, 3].map((id) => ({ id, description: `part ${id}` }));
      const context = createTestActionContext({
        responses: [json({ analysis: 'a', sub_problems: subs }), budget(), budget(), budget()],
      });
      await expect(runAction('reason.decompose', { problem: 'p', max_concurrency: 3 }, context)).rejects.toMatchObject({
        code: 'BUDGET_EXCEEDED',
      });
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
