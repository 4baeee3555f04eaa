/**
 * reflection.loop: the circuit breaker (exact caps, concurrent runs), on_failure strategies with
 * deterministic best-of, `raise` with full history, budget and cancellation (TEA 6.1 #3, #14–16;
 * 6.3 #1–3, #22–23; seed 000 "Circuit breaker" and "return_best").
 */
import { describe, expect, it } from 'vitest';
import { runAgent } from '../../src/graph/run-agent.js';
import { loadAgent } from '../../src/load-agent-with-scripts.js';
import { createActionRegistry } from '../../src/builtins.js';
import { agentYaml, run, scriptedAction } from './support.js';

const scoreEvaluator = { type: 'lua', run: 'return {valid = false, score = output.score}' };

describe('circuit breaker', () => {
  it.each([1, 2, 3])('stops at exactly max_iterations = %i, even with a corrector that throws', async (max) => {
    const generator = scriptedAction('test.generate', [{ invalid: true }]);
    const corrector = scriptedAction('test.correct', [new Error('always fails')]);
    const yaml = agentYaml('reflection.loop', {
      generator: { action: 'test.generate' },
      evaluator: { type: 'schema', schema: { type: 'object', required: ['name'] } },
      corrector: { action: 'test.correct' },
      max_iterations: max,
      on_failure: 'return_last',
    });
    const { result, attempts } = await run(yaml, {}, { actions: [generator.action, corrector.action] });
    expect(result.state).toMatchObject({
      valid: false,
      success: false,
      exhausted: true,
      reflection_iteration: max,
      iterations: max,
      stop_reason: 'max_iterations',
    });
    expect(result.state.reflection_history).toHaveLength(max);
    expect(generator.calls).toHaveLength(max);
    expect(corrector.calls).toHaveLength(max - 1);
    expect(attempts.map((attempt) => attempt.iteration)).toEqual(Array.from({ length: max }, (_, index) => index + 1));
  });

  it('stops at the cap when the corrector always supplies a (bad) candidate', async () => {
    const yaml = agentYaml('reflection.loop', {
      generator: { run: 'return {n = 0}' },
      evaluator: { type: 'lua', run: 'return output.n > 10' },
      corrector: { run: 'return {reflection_output = {n = (state.reflection_output.n or 0) + 1}}' },
      max_iterations: 3,
    });
    const { result } = await run(yaml);
    expect(result.state).toMatchObject({ valid: false, exhausted: true, iterations: 3 });
    expect(
      (result.state.reflection_history as Array<{ output: { n: number }; source: string }>).map((attempt) => [
        attempt.output.n,
        attempt.source,
      ]),
    ).toEqual([
      [0, 'generator'],
      [1, 'corrector'],
      [2, 'corrector'],
    ]);
  });

  it('holds per run under 25 concurrent runs of one compiled agent in one process', async () => {
    const generator = scriptedAction('test.generate', [
      (_params: unknown, state: Record<string, unknown>) => ({
        run: state.who,
        attempt: state.reflection_iteration as number,
      }),
    ]);
    const yaml = agentYaml('reflection.loop', {
      generator: { action: 'test.generate' },
      evaluator: { type: 'lua', run: 'return false' },
      corrector: { run: 'return {}' },
      max_iterations: 3,
      on_failure: 'return_last',
    });
    const agent = loadAgent(yaml, { registry: createActionRegistry([generator.action]) });
    const results = await Promise.all(
      Array.from({ length: 25 }, (_, index) => runAgent(agent, { who: `run-${index}` }).result),
    );
    results.forEach((result, index) => {
      const history = result.state.reflection_history as Array<{ output: { run: string; attempt: number } }>;
      expect(history).toHaveLength(3);
      expect(history.map((attempt) => attempt.output)).toEqual(
        [1, 2, 3].map((attempt) => ({ run: `run-${index}`, attempt })),
      );
      expect(result.state.reflection_iteration).toBe(3);
    });
    expect(generator.calls).toHaveLength(75);
  });
});

describe('on_failure strategies', () => {
  const scored = (scores: number[]) =>
    scriptedAction(
      'test.generate',
      scores.map((score, index) => ({ score, iteration: index + 1 })),
    );

  it('return_best returns the highest score (TEA 6.1 #14)', async () => {
    const generator = scored([0.3, 0.8, 0.5]);
    const yaml = agentYaml('reflection.loop', {
      generator: { action: 'test.generate' },
      evaluator: scoreEvaluator,
      corrector: { run: 'return {}' },
      max_iterations: 3,
      on_failure: 'return_best',
    });
    const { result } = await run(yaml, {}, { actions: [generator.action] });
    expect(result.state).toMatchObject({
      valid: false,
      reflection_best_score: 0.8,
      reflection_best: { iteration: 2 },
      output: { iteration: 2 },
      reflection_output: { iteration: 2 },
    });
  });

  it('return_best breaks ties deterministically: the earliest attempt wins', async () => {
    for (const scores of [
      [0.5, 0.8, 0.8],
      [0.8, 0.8, 0.8],
      [0.2, 0.6, 0.6, 0.4],
    ]) {
      const generator = scored(scores);
      const yaml = agentYaml('reflection.loop', {
        generator: { action: 'test.generate' },
        evaluator: scoreEvaluator,
        max_iterations: scores.length,
      });
      const { result } = await run(yaml, {}, { actions: [generator.action] });
      expect((result.state.output as { iteration: number }).iteration).toBe(scores.indexOf(Math.max(...scores)) + 1);
    }
  });

  it('return_best prefers the schema attempt with fewer errors (graded score)', async () => {
    const generator = scriptedAction('test.generate', [{}, { a: 1 }, { a: 1, b: 'x' }]);
    const schema = { type: 'object', required: ['a', 'b', 'c'], properties: { b: { type: 'number' } } };
    const yaml = agentYaml('reflection.loop', {
      generator: { action: 'test.generate' },
      evaluator: { type: 'schema', schema },
      max_iterations: 3,
    });
    const { result } = await run(yaml, {}, { actions: [generator.action] });
    const history = result.state.reflection_history as Array<{ score: number }>;
    expect(history.map((attempt) => attempt.score)).toEqual([0.4, 0.6, 0.6]);
    expect(result.state.output).toEqual({ a: 1 });
  });

  it('return_last returns the final attempt (TEA 6.1 #15)', async () => {
    const generator = scored([0.8, 0.3, 0.5]);
    const yaml = agentYaml('reflection.loop', {
      generator: { action: 'test.generate' },
      evaluator: scoreEvaluator,
      max_iterations: 3,
      on_failure: 'return_last',
    });
    const { result } = await run(yaml, {}, { actions: [generator.action] });
    expect(result.state).toMatchObject({
      valid: false,
      reflection_iteration: 3,
      reflection_output: { iteration: 3 },
      reflection_best_score: 0.8,
    });
  });

  it('raise fails the node with REFLECTION_FAILED carrying the full history (TEA 6.1 #16, 6.3 #23)', async () => {
    const generator = scored([0.3, 0.3, 0.3]);
    const yaml = agentYaml('reflection.loop', {
      generator: { action: 'test.generate' },
      evaluator: { type: 'lua', run: 'return {valid = false, score = 0.3, errors = {"too weak"}}' },
      max_iterations: 3,
      on_failure: 'raise',
    });
    const { result } = await run(yaml, {}, { actions: [generator.action] });
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('REFLECTION_FAILED');
    expect(result.error?.message).toContain('failed');
    const history = result.error?.details?.history as Array<{
      iteration: number;
      output: unknown;
      errors: Array<{ message: string }>;
    }>;
    expect(history).toHaveLength(3);
    expect(history.map((attempt) => attempt.iteration)).toEqual([1, 2, 3]);
    expect(history[2]!.errors[0]!.message).toBe('too weak');
    expect(history[1]!.output).toEqual({ score: 0.3, iteration: 2 });
  });

  it('raise does not fire when an attempt is valid', async () => {
    const yaml = agentYaml('reflection.loop', {
      generator: { run: 'return {ok = true}' },
      evaluator: { type: 'lua', run: 'return output.ok' },
      on_failure: 'raise',
    });
    const { result } = await run(yaml);
    expect(result.status).toBe('completed');
  });
});

describe('run-level control flow', () => {
  it('a run budget ends the loop: BUDGET_EXCEEDED with the partial result (stop_reason budget) in details', async () => {
    const yaml = agentYaml(
      'reflection.loop',
      {
        generator: { action: 'llm.call', prompt: 'x' },
        evaluator: { type: 'schema', schema: { type: 'object', required: ['z'] } },
        max_iterations: 5,
      },
      { settings: { limits: { max_llm_calls: 2 } } },
    );
    const { result, attempts } = await run(yaml, {}, { responses: ['{"a": 1}', '{"b": 2}', '{"c": 3}'] });
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('BUDGET_EXCEEDED');
    expect(result.stop_reason).toBe('max_llm_calls');
    const partial = result.error?.details?.reflection as Record<string, unknown>;
    expect(partial).toMatchObject({ stop_reason: 'budget', iterations: 2, exhausted: false, valid: false });
    expect(attempts).toHaveLength(2);
  });

  it('cancelling the run stops the loop without recording an attempt', async () => {
    const yaml = agentYaml('reflection.loop', {
      generator: { action: 'llm.call', prompt: 'x' },
      evaluator: { type: 'schema', schema: { type: 'object' } },
      max_iterations: 3,
    });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const { result, attempts } = await run(
      yaml,
      {},
      { signal: controller.signal, responses: [{ content: '{"a": 1}', delay_ms: 5000 }] },
    );
    expect(result.status).toBe('cancelled');
    expect(result.error?.code).toBe('CANCELLED');
    expect(attempts).toHaveLength(0);
  }, 10_000);
});
