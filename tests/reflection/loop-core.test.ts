/**
 * reflection.loop through the engine: TEA's python tests (tea-behaviour §6.1) and rust tests
 * (§6.3) that concern the loop, the seeds' key scenarios, and docs/spec.md#51-reflectionloop's deliberate changes
 * (named "SPEC differs" where TEA behaves otherwise).
 */
import { describe, expect, it } from 'vitest';
import { agentYaml, run, scriptedAction } from './support.js';

const personSchema = {
  type: 'object',
  required: ['name', 'email'],
  properties: { name: { type: 'string' }, email: { type: 'string' } },
};

describe('reflection.loop: core flow', () => {
  it('first-pass success: an llm.call generator passes at once (TEA 6.1 #1)', async () => {
    const yaml = agentYaml('reflection.loop', {
      generator: { action: 'llm.call', prompt: 'Make a person' },
      evaluator: { type: 'schema', schema: personSchema },
      max_iterations: 3,
      on_failure: 'return_best',
    });
    const { result, calls, attempts } = await run(
      yaml,
      {},
      { responses: ['{"name": "Alice", "email": "alice@test.com"}'] },
    );
    expect(result.status).toBe('completed');
    expect(result.state).toMatchObject({
      valid: true,
      success: true,
      reflection_iteration: 1,
      reflection_errors: [],
      stop_reason: 'valid',
      iterations: 1,
      exhausted: false,
    });
    expect(result.state.reflection_history).toHaveLength(1);
    expect(result.state.output).toEqual({ name: 'Alice', email: 'alice@test.com' });
    expect(result.state.name).toBe('Alice');
    expect(calls).toHaveLength(1);
    expect(attempts).toEqual([expect.objectContaining({ iteration: 1, valid: true, score: 1, error_count: 0 })]);
  });

  it('correction success with a state-only corrector reruns the generator (TEA 6.1 #2, returns: state)', async () => {
    const generator = scriptedAction('test.generate', [{ name: 'Bob' }, { name: 'Bob', email: 'bob@test.com' }]);
    const corrector = scriptedAction('test.correct', [{ correction_applied: true }]);
    const yaml = agentYaml('reflection.loop', {
      generator: { action: 'test.generate' },
      evaluator: { type: 'schema', schema: personSchema },
      corrector: { action: 'test.correct', returns: 'state' },
    });
    const { result } = await run(yaml, {}, { actions: [generator.action, corrector.action] });
    expect(result.state).toMatchObject({ valid: true, reflection_iteration: 2 });
    expect(result.state.reflection_history).toHaveLength(2);
    expect(generator.calls).toHaveLength(2);
    expect(generator.calls[1]!.state.correction_applied).toBe(true);
  });

  it('SPEC differs from TEA: an action corrector result is the next candidate (the generator is not rerun)', async () => {
    const generator = scriptedAction('test.generate', [{ name: 'Bob' }]);
    const corrector = scriptedAction('test.correct', [
      (_params: unknown, state: Record<string, unknown>) => ({
        ...(state.reflection_output as object),
        email: 'bob@test.com',
      }),
    ]);
    const yaml = agentYaml('reflection.loop', {
      generator: { action: 'test.generate' },
      evaluator: { type: 'schema', schema: personSchema },
      corrector: { action: 'test.correct', errors: '{{ state.reflection_errors }}' },
    });
    const { result } = await run(yaml, {}, { actions: [generator.action, corrector.action] });
    expect(result.state).toMatchObject({ valid: true, iterations: 2, output: { name: 'Bob', email: 'bob@test.com' } });
    expect(generator.calls).toHaveLength(1);
    expect(corrector.calls[0]!.params.errors).toEqual([
      expect.objectContaining({ keyword: 'required', type: 'validation_error' }),
    ]);
    expect((result.state.reflection_history as Array<{ source: string }>).map((attempt) => attempt.source)).toEqual([
      'generator',
      'corrector',
    ]);
  });

  it('the corrector sees reflection_output and reflection_errors in its templates (seed 000 YAML)', async () => {
    const yaml = agentYaml('reflection.loop', {
      generator: { action: 'llm.call', prompt: 'Generate valid JSON for: {{ state.request }}' },
      evaluator: { type: 'schema', schema: personSchema },
      corrector: {
        action: 'llm.call',
        prompt:
          'Fix this JSON. Errors: {{ state.reflection_errors | json }}\nOriginal: {{ state.reflection_output | tojson }}',
      },
      max_iterations: 3,
    });
    const { result, calls } = await run(
      yaml,
      { request: 'a user' },
      { responses: ['{"name": "Ann"}', '```json\n{"name": "Ann", "email": "ann@x.io"}\n```'] },
    );
    expect(result.state).toMatchObject({ valid: true, iterations: 2 });
    const correctorPrompt = calls[1]!.request.messages.at(-1)!.content as string;
    expect(correctorPrompt).toContain('"required"');
    expect(correctorPrompt).toMatch(/Original: \{"name": ?"Ann"\}/);
  });

  it('tracks iteration state in the result (TEA 6.1 #4) and accumulates history entries (#5)', async () => {
    const generator = scriptedAction('test.generate', [
      { partial: 1 },
      { partial: 2 },
      { name: 'Valid', complete: true },
    ]);
    const yaml = agentYaml('reflection.loop', {
      generator: { action: 'test.generate' },
      evaluator: { type: 'schema', schema: { type: 'object', required: ['name'] } },
      corrector: { run: 'return {}' },
      max_iterations: 5,
    });
    const { result } = await run(yaml, {}, { actions: [generator.action] });
    for (const key of [
      'reflection_iteration',
      'reflection_history',
      'reflection_best',
      'reflection_best_score',
      'reflection_output',
      'reflection_errors',
      'reflection_feedback',
    ]) {
      expect(result.state).toHaveProperty(key);
    }
    const history = result.state.reflection_history as Array<Record<string, unknown>>;
    expect(history).toHaveLength(3);
    for (const entry of history)
      expect(Object.keys(entry)).toEqual(expect.arrayContaining(['iteration', 'output', 'score', 'valid', 'errors']));
    expect(history.map((entry) => entry.iteration)).toEqual([1, 2, 3]);
  });

  it('with output: the result sits under the key and top-level reflection_* stay unset', async () => {
    const yaml = JSON.stringify({
      name: 'out',
      nodes: [
        {
          name: 'reflect',
          uses: 'reflection.loop',
          output: 'draft',
          with: {
            generator: { run: 'return {name = "x"}' },
            evaluator: { type: 'schema', schema: { type: 'object' } },
          },
        },
      ],
    });
    const { result } = await run(yaml);
    expect(result.state.draft).toMatchObject({ valid: true, output: { name: 'x' } });
    expect(result.state.reflection_history).toBeUndefined();
  });

  it('output keys are spread into the result but never overwrite the loop keys (SPEC differs from TEA)', async () => {
    const yaml = agentYaml('reflection.loop', {
      generator: {
        run: 'return {valid = "yes", success = 0, reflection_iteration = 99, stop_reason = "x", title = "T"}',
      },
      evaluator: { type: 'lua', run: 'return true' },
    });
    const { result } = await run(yaml);
    expect(result.state).toMatchObject({
      valid: true,
      success: true,
      reflection_iteration: 1,
      stop_reason: 'valid',
      title: 'T',
    });
  });

  it('the loop works on a copy: corrector state updates never leak into the run state (QA: state corruption)', async () => {
    const yaml = agentYaml('reflection.loop', {
      generator: { run: 'return {n = iteration, saw_hint = state.hint}' },
      evaluator: { type: 'lua', run: 'return output.saw_hint == "try harder"' },
      corrector: { run: 'return {hint = "try harder", request = "changed"}' },
    });
    const { result } = await run(yaml, { request: 'original' });
    expect(result.state).toMatchObject({ valid: true, iterations: 2, request: 'original' });
    expect(result.state.hint).toBeUndefined();
  });

  it('agrees with validate.schema on the same schema and data', async () => {
    const schema = {
      type: 'object',
      required: ['a'],
      properties: { b: { type: 'integer' }, c: { type: 'string', pattern: '^x' } },
    };
    const data = { b: 'nope', c: 'y' };
    const yaml = JSON.stringify({
      name: 'agree',
      nodes: [
        { name: 'check', uses: 'validate.schema', output: 'check', with: { data, schema } },
        {
          name: 'eval',
          uses: 'reflection.evaluate',
          output: 'eval',
          with: { data, evaluator: { type: 'schema', schema, coerce: false } },
        },
      ],
    });
    const { result } = await run(yaml);
    const paths = (value: unknown) =>
      (value as { errors: Array<{ path: string; keyword: string }> }).errors
        .map((error) => `${error.path} ${error.keyword}`)
        .sort();
    expect(paths(result.state.eval)).toEqual(paths(result.state.check));
    expect(paths(result.state.eval)).toEqual([' required', '/b type', '/c pattern']);
  });

  it('a non-object output becomes `result`', async () => {
    const yaml = agentYaml('reflection.loop', {
      generator: { run: 'return "plain text"' },
      evaluator: { type: 'lua', run: 'return #output > 3' },
    });
    const { result } = await run(yaml);
    expect(result.state).toMatchObject({ valid: true, result: 'plain text', output: 'plain text' });
  });
});

describe('reflection.loop: failures inside the loop are attempts', () => {
  it('a generator that throws is recorded and the loop goes on (TEA 6.1 #24)', async () => {
    const generator = scriptedAction('test.generate', [new Error('Generator crashed!')]);
    const yaml = agentYaml('reflection.loop', {
      generator: { action: 'test.generate' },
      evaluator: { type: 'schema', schema: {} },
      max_iterations: 2,
      on_failure: 'return_last',
    });
    const { result } = await run(yaml, {}, { actions: [generator.action] });
    expect(result.status).toBe('completed');
    const history = result.state.reflection_history as Array<{
      valid: boolean;
      output: unknown;
      errors: Array<{ message: string; type: string }>;
    }>;
    expect(history).toHaveLength(2);
    expect(history[0]!.valid).toBe(false);
    expect(history[0]!.output).toBeNull();
    expect(history[0]!.errors[0]!.type).toBe('generator_error');
    expect(history[0]!.errors[0]!.message).toContain('Generator failed: Generator crashed!');
    expect(result.state).toMatchObject({
      exhausted: true,
      stop_reason: 'max_iterations',
      reflection_best: null,
      reflection_best_score: -1,
    });
  });

  it('an LLM error in the generator fails the node, it is not an attempt (issue 10: infrastructure)', async () => {
    const yaml = agentYaml('reflection.loop', {
      generator: { action: 'llm.call', prompt: 'x' },
      evaluator: { type: 'schema', schema: { type: 'object' } },
      max_iterations: 2,
    });
    const { result, calls, attempts } = await run(
      yaml,
      {},
      { responses: [{ error: { code: 'LLM_HTTP_500', message: 'boom' } }, '{"ok": true}'] },
    );
    expect(result.status).toBe('failed');
    expect(result.error).toMatchObject({ code: 'LLM_HTTP_500' });
    expect(calls).toHaveLength(1);
    expect(attempts).toHaveLength(0);
  });

  it('SPEC differs from TEA: unparseable JSON from the model is a parse_error attempt, and the corrector can fix it', async () => {
    const yaml = agentYaml('reflection.loop', {
      generator: { action: 'llm.call', prompt: 'json please' },
      evaluator: { type: 'schema', schema: personSchema },
      corrector: { action: 'llm.call', prompt: 'Fix: {{ state.reflection_output }}' },
    });
    const { result, calls } = await run(
      yaml,
      {},
      { responses: ['Sorry, I cannot do that today.', 'Here you go:\n{"name": "Ann", "email": "a@b.c",}'] },
    );
    expect(result.state).toMatchObject({ valid: true, iterations: 2, output: { name: 'Ann', email: 'a@b.c' } });
    const first = (result.state.reflection_history as Array<{ output: unknown; errors: Array<{ type: string }> }>)[0]!;
    expect(first.errors[0]!.type).toBe('parse_error');
    expect(first.output).toBe('Sorry, I cannot do that today.');
    expect(calls[1]!.request.messages.at(-1)!.content).toContain('Fix: Sorry, I cannot do that today.');
  });

  it('a schema that accepts text keeps a plain-text candidate', async () => {
    const yaml = agentYaml('reflection.loop', {
      generator: { action: 'llm.call', prompt: 'x' },
      evaluator: { type: 'schema', schema: { type: 'string', minLength: 3 } },
    });
    const { result } = await run(yaml, {}, { responses: ['hello there'] });
    expect(result.state).toMatchObject({ valid: true, output: 'hello there' });
  });

  it('a corrector that throws is recorded as corrector_error on the attempt and the generator runs next', async () => {
    const generator = scriptedAction('test.generate', [{ name: 'A' }, { name: 'A', email: 'a@b.c' }]);
    const corrector = scriptedAction('test.correct', [new Error('corrector down')]);
    const yaml = agentYaml('reflection.loop', {
      generator: { action: 'test.generate' },
      evaluator: { type: 'schema', schema: personSchema },
      corrector: { action: 'test.correct' },
      max_iterations: 3,
    });
    const { result } = await run(yaml, {}, { actions: [generator.action, corrector.action] });
    expect(result.state).toMatchObject({ valid: true, iterations: 2 });
    const first = (result.state.reflection_history as Array<{ errors: Array<{ type: string; message: string }> }>)[0]!;
    expect(first.errors.map((error) => error.type)).toEqual(['validation_error', 'corrector_error']);
    expect(first.errors[1]!.message).toContain('Corrector failed: corrector down');
    expect(generator.calls).toHaveLength(2);
  });

  it('a candidate too large to validate is an invalid attempt (INPUT_TOO_LARGE as evaluator_error)', async () => {
    let deep: unknown = 'leaf';
    for (let level = 0; level < 80; level += 1) deep = { next: deep };
    const generator = scriptedAction('test.generate', [deep]);
    const yaml = agentYaml('reflection.loop', {
      generator: { action: 'test.generate' },
      evaluator: { type: 'schema', schema: { type: 'object' } },
      max_iterations: 1,
    });
    const { result } = await run(yaml, {}, { actions: [generator.action] });
    expect(result.status).toBe('completed');
    const error = (result.state.reflection_history as Array<{ errors: Array<{ type: string; message: string }> }>)[0]!
      .errors[0]!;
    expect(error.type).toBe('evaluator_error');
    expect(error.message).toContain('INPUT_TOO_LARGE');
  });

  it('an evaluator script error is an invalid attempt (evaluator_error), not an aborted loop', async () => {
    const yaml = agentYaml('reflection.loop', {
      generator: { run: 'return {n = 1}' },
      evaluator: { type: 'lua', run: 'error("bad evaluator")' },
      max_iterations: 2,
    });
    const { result } = await run(yaml);
    expect(result.status).toBe('completed');
    const history = result.state.reflection_history as Array<{ errors: Array<{ type: string; message: string }> }>;
    expect(history).toHaveLength(2);
    expect(history[0]!.errors[0]).toMatchObject({ type: 'evaluator_error' });
    expect(history[0]!.errors[0]!.message).toContain('bad evaluator');
  });
});
