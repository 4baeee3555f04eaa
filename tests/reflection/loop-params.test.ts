/**
 * reflection.loop parameters are validated when the agent loads (docs/spec.md#51-reflectionloop), not at the first
 * iteration (SPEC differs from TEA, which finds an unknown evaluator type after generating).
 * TEA 6.1 #21–23, 6.3 #14–19.
 */
import { describe, expect, it } from 'vitest';
import { agentYaml, load, loadError, run } from './support.js';

const generator = { run: 'return {}' };
const evaluator = { type: 'schema', schema: { type: 'object' } };

describe('reflection.loop: load-time validation', () => {
  it.each([
    ['max_iterations 0 (TEA 6.1 #21)', { generator, evaluator, max_iterations: 0 }, 'max_iterations'],
    ['max_iterations -1', { generator, evaluator, max_iterations: -1 }, 'max_iterations'],
    ['max_iterations 1.5', { generator, evaluator, max_iterations: 1.5 }, 'max_iterations'],
    ['max_iterations text', { generator, evaluator, max_iterations: 'three' }, 'max_iterations'],
    ['max_iterations over the limit', { generator, evaluator, max_iterations: 100000 }, 'max_iterations'],
    ['invalid on_failure (TEA 6.1 #22)', { generator, evaluator, on_failure: 'invalid_strategy' }, 'on_failure'],
    ['missing generator (6.3 #16)', { evaluator }, 'generator'],
    ['missing evaluator (6.3 #17)', { generator }, 'evaluator'],
    [
      'unknown evaluator type (TEA 6.1 #23, SPEC differs: at load)',
      { generator, evaluator: { type: 'invalid_type' } },
      'type',
    ],
    ['schema evaluator without schema', { generator, evaluator: { type: 'schema' } }, 'schema'],
    ['lua evaluator without code', { generator, evaluator: { type: 'lua' } }, 'run'],
    ['generator without action or run', { generator: { prompt: 'x' }, evaluator }, 'generator'],
    ['bad corrector returns', { generator, evaluator, corrector: { run: 'return {}', returns: 'both' } }, 'returns'],
    ['judge examples not a list', { generator, evaluator: { type: 'llm', examples: 'x' } }, 'examples'],
  ])('refuses %s with INVALID_PARAMS naming the field', (_label, params, field) => {
    const error = loadError(agentYaml('reflection.loop', params));
    expect(error.code).toBe('INVALID_PARAMS');
    // The parameter is named in the text or as the error's field; the node as its node.
    expect(`${error.location.field ?? ''} ${error.message}`).toContain(field);
    expect(error.location.node).toBe('reflect');
  });

  it('the error carries the line of the offending field in the agent file', () => {
    const yaml = [
      'name: lines',
      'nodes:',
      '  - name: reflect',
      '    uses: reflection.loop',
      '    with:',
      '      generator: {run: "return {}"}',
      '      evaluator: {type: schema, schema: {}}',
      '      max_iterations: 0',
    ].join('\n');
    const error = loadError(yaml);
    expect(error.code).toBe('INVALID_PARAMS');
    expect(error.location.line).toBe(8);
  });

  it('refuses Python evaluators and generators with UNSUPPORTED_LANGUAGE', () => {
    expect(
      loadError(
        agentYaml('reflection.loop', {
          generator,
          evaluator: { type: 'custom', language: 'python', run: 'result = True' },
        }),
      ).code,
    ).toBe('UNSUPPORTED_LANGUAGE');
    expect(
      loadError(agentYaml('reflection.loop', { generator: { run: 'x = 1', language: 'python' }, evaluator })).code,
    ).toBe('UNSUPPORTED_LANGUAGE');
    // TEA's custom evaluators default to Python: plainly Python code is named as such.
    expect(
      loadError(
        agentYaml('reflection.loop', {
          generator,
          evaluator: { type: 'custom', run: 'result = {"valid": len(output.get("name", "")) > 0}' },
        }),
      ).code,
    ).toBe('UNSUPPORTED_LANGUAGE');
    expect(
      loadError(agentYaml('reflection.loop', { generator: { run: 'def make():\n    return {"a": 1}' }, evaluator }))
        .code,
    ).toBe('UNSUPPORTED_LANGUAGE');
  });

  it('finds Lua syntax errors in generator, evaluator and corrector at load', () => {
    expect(loadError(agentYaml('reflection.loop', { generator: { run: 'return {' }, evaluator })).code).toBe(
      'LUA_SYNTAX',
    );
    expect(
      loadError(agentYaml('reflection.loop', { generator, evaluator: { type: 'lua', run: 'if then' } })).code,
    ).toBe('LUA_SYNTAX');
    expect(loadError(agentYaml('reflection.loop', { generator, evaluator, corrector: { run: 'end end' } })).code).toBe(
      'LUA_SYNTAX',
    );
  });

  it('refuses unknown generator actions with UNKNOWN_ACTION and suggestions', () => {
    const error = loadError(agentYaml('reflection.loop', { generator: { action: 'llm.cal', prompt: 'x' }, evaluator }));
    expect(error.code).toBe('UNKNOWN_ACTION');
    expect(error.message).toContain('llm.call');
  });

  it('refuses unsafe or broken schemas with SCHEMA_INVALID at load', () => {
    expect(
      loadError(
        agentYaml('reflection.loop', {
          generator,
          evaluator: { type: 'schema', schema: { type: 'string', pattern: '^(?=a)(a+)+$' } },
        }),
      ).code,
    ).toBe('SCHEMA_INVALID');
    expect(
      loadError(
        agentYaml('reflection.loop', { generator, evaluator: { type: 'schema', schema: { $ref: 'missing_schema' } } }),
      ).code,
    ).toBe('SCHEMA_INVALID');
    expect(
      loadError(agentYaml('reflection.loop', { generator, evaluator: { type: 'schema', schema: { $ref: '#' } } })).code,
    ).toBe('SCHEMA_INVALID');
  });

  it('refuses bad templates in generator parameters at load', () => {
    const error = loadError(
      agentYaml('reflection.loop', {
        generator: { action: 'llm.call', prompt: '{{ state.x | nosuchfilter }}' },
        evaluator,
      }),
    );
    expect(['TEMPLATE_ERROR', 'INVALID_PARAMS']).toContain(error.code);
  });

  it('accepts defaults, uses:, with:, the custom+lua alias and TEA action aliases', async () => {
    expect(() => load(agentYaml('reflection.loop', { generator, evaluator }))).not.toThrow();
    expect(() => load(agentYaml('actions.reflection_loop', { generator, evaluator }))).not.toThrow();
    const yaml = agentYaml('reflection.loop', {
      generator: { uses: 'llm.call', with: { prompt: 'Hi' } },
      evaluator: { type: 'custom', language: 'lua', run: 'return true' },
      max_iterations: '2',
    });
    const { result } = await run(yaml, {}, { responses: ['hello'] });
    expect(result.state).toMatchObject({ valid: true, output: 'hello' });
    const { result: aliased } = await run(
      agentYaml('actions.reflection_loop', { generator: { run: 'return {x = 1}' }, evaluator }),
    );
    expect(aliased.state).toMatchObject({ valid: true, x: 1 });
  });

  it('defaults: max_iterations 3, on_failure return_best, evaluator type schema', async () => {
    const { result } = await run(
      agentYaml('reflection.loop', {
        generator: { run: 'return {n = iteration}' },
        evaluator: { schema: { type: 'object', required: ['never'] } },
      }),
    );
    expect(result.state).toMatchObject({ iterations: 3, exhausted: true, output: { n: 1 } });
  });
});
