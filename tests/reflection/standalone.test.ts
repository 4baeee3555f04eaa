/**
 * reflection.evaluate and reflection.correct (docs/spec.md#53-standalone-actions, TEA 6.1 #17–19, 6.3 #24–28), and the
 * registered names.
 */
import { describe, expect, it } from 'vitest';
import { createActionRegistry } from '../../src/builtins.js';
import { agentYaml, loadError, run, scriptedAction } from './support.js';

describe('reflection.evaluate', () => {
  it('returns the verdict plus success: true (TEA 6.1 #17, 6.3 #24–26)', async () => {
    const { result } = await run(
      agentYaml('reflection.evaluate', { data: { key: 'value' }, schema: { type: 'object', required: ['key'] } }),
    );
    expect(result.state).toMatchObject({ valid: true, score: 1, success: true });
    const { result: lua } = await run(
      agentYaml('reflection.evaluate', { data: { value: 100 }, type: 'lua', run: 'return state.output.value > 50' }),
    );
    expect(lua.state).toMatchObject({ valid: true, success: true });
  });

  it('defaults data to state.reflection_output, then state.output', async () => {
    const params = { evaluator: { type: 'lua', run: 'return output == "from state"' } };
    expect(
      (await run(agentYaml('reflection.evaluate', params), { reflection_output: 'from state' })).result.state.valid,
    ).toBe(true);
    expect((await run(agentYaml('reflection.evaluate', params), { output: 'from state' })).result.state.valid).toBe(
      true,
    );
  });

  it('SPEC differs from TEA: argument errors fail at load, not as success: false at run', () => {
    expect(loadError(agentYaml('reflection.evaluate', { data: {}, evaluator_type: 'schema' })).code).toBe(
      'INVALID_PARAMS',
    );
    expect(loadError(agentYaml('reflection.evaluate', { data: {}, evaluator_type: 'nope' })).code).toBe(
      'INVALID_PARAMS',
    );
    expect(loadError(agentYaml('reflection.evaluate', { data: {}, evaluator_type: 'custom' })).code).toBe(
      'INVALID_PARAMS',
    );
  });

  it('renders data templates against the state', async () => {
    const { result } = await run(
      agentYaml('reflection.evaluate', { data: '{{ state.person }}', schema: { type: 'object', required: ['name'] } }),
      { person: { name: 'A' } },
    );
    expect(result.state.valid).toBe(true);
  });
});

describe('reflection.correct', () => {
  it('runs a corrector action with the errors in its state (TEA 6.1 #18)', async () => {
    const corrector = scriptedAction('my.corrector', [
      (_params: unknown, state: Record<string, unknown>) => ({
        corrected: true,
        fixed_errors: (state.reflection_errors as unknown[]).length,
      }),
    ]);
    const yaml = agentYaml('reflection.correct', {
      data: { original: 'data' },
      errors: [{ message: 'e1' }, { message: 'e2' }],
      corrector_action: 'my.corrector',
    });
    const { result } = await run(yaml, {}, { actions: [corrector.action] });
    expect(result.state).toMatchObject({ success: true, corrected_output: { corrected: true, fixed_errors: 2 } });
    expect(corrector.calls[0]!.state.reflection_output).toEqual({ original: 'data' });
  });

  it('runs a Lua corrector on state.reflection_output (6.3 #27)', async () => {
    const { result } = await run(
      agentYaml('reflection.correct', { run: 'return {value = state.reflection_output.value * 2}' }),
      { reflection_output: { value: 5 } },
    );
    expect(result.state).toMatchObject({ success: true, corrected_output: { value: 10 } });
  });

  it('runs an LLM corrector from a prompt and parses its JSON', async () => {
    const { result, calls } = await run(
      agentYaml('reflection.correct', {
        data: { a: 1 },
        errors: ['b missing'],
        prompt: 'Fix {{ state.reflection_output | tojson }}: {{ state.reflection_errors | join(", ") }}',
      }),
      {},
      { responses: ['```json\n{"a": 1, "b": 2}\n```'] },
    );
    expect(result.state).toMatchObject({ success: true, corrected_output: { a: 1, b: 2 } });
    expect(calls[0]!.request.messages.at(-1)!.content).toContain('b missing');
  });

  it('without a corrector: success false, "No corrector specified" (6.3 #28)', async () => {
    const { result } = await run(agentYaml('reflection.correct', { data: { a: 1 } }));
    expect(result.state).toMatchObject({ success: false, error: 'No corrector specified', corrected_output: { a: 1 } });
  });

  it('a failing corrector gives success false with the error, keeping the data', async () => {
    const corrector = scriptedAction('my.corrector', [new Error('nope')]);
    const { result } = await run(
      agentYaml('reflection.correct', { data: { a: 1 }, corrector: { action: 'my.corrector' } }),
      {},
      { actions: [corrector.action] },
    );
    expect(result.state).toMatchObject({ success: false, corrected_output: { a: 1 } });
    expect(String(result.state.error)).toContain('nope');
  });
});

describe('registry', () => {
  it('registers all four actions and their TEA aliases (TEA 6.1 #19)', () => {
    const registry = createActionRegistry();
    for (const name of ['loop', 'evaluate', 'correct', 'review']) {
      expect(registry.get(`reflection.${name}`)?.name).toBe(`reflection.${name}`);
      expect(registry.get(`actions.reflection_${name}`)?.name).toBe(`reflection.${name}`);
    }
  });
});
