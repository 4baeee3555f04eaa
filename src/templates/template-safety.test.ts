import { describe, expect, it } from 'vitest';
import { AgentError } from '../core/agent-error.js';
import { compileTemplate, DEFAULT_TEMPLATE_LIMITS, resolveTemplateLimits } from './index.js';
import type { TemplateOptions } from './types.js';

const where = { node: 'bomb', field: 'with.prompt' };

function failure(action: () => unknown): AgentError {
  try {
    action();
  } catch (error) {
    expect(AgentError.isInstance(error)).toBe(true);
    return error as AgentError;
  }
  throw new Error('expected an AgentError');
}

function render(source: string, scope: Record<string, unknown> = {}, options: TemplateOptions = {}): unknown {
  return compileTemplate(source, where, options).render(scope);
}

describe('limits: bombs end with TEMPLATE_LIMIT after bounded work', () => {
  it('range(10**9) fails before allocating', () => {
    const error = failure(() => render('{% for i in range(10**9) %}x{% endfor %}'));
    expect(error.code).toBe('TEMPLATE_LIMIT');
    expect(error.location).toMatchObject({ node: 'bomb', field: 'with.prompt' });
    expect(error.details.limit).toBe('maxLoopIterations');
  });

  it('nested loops over data stop at the total iteration cap', () => {
    const rows = Array.from({ length: 100 }, (_, index) => index);
    const small = { limits: { maxLoopIterations: 2_000 } };
    const error = failure(() =>
      render('{% for a in state.rows %}{% for b in state.rows %}{% endfor %}{% endfor %}', { state: { rows } }, small),
    );
    expect(error.code).toBe('TEMPLATE_LIMIT');
    expect(error.details.limit).toBe('maxLoopIterations');
  });

  it('a loop over more items than the cap is refused before it starts', () => {
    const rows = Array.from({ length: 11 }, (_, index) => index);
    const options = { limits: { maxLoopIterations: 10 } };
    expect(failure(() => render('{% for row in state.rows %}{% endfor %}', { state: { rows } }, options)).code).toBe(
      'TEMPLATE_LIMIT',
    );
    expect(failure(() => render("{% for c in 'x' * 11 %}{% endfor %}", {}, options)).code).toBe('TEMPLATE_LIMIT');
    expect(render('{% for row in state.rows[:10] %}{% endfor %}ok', { state: { rows } }, options)).toBe('ok');
  });

  it('many small ranges add up', () => {
    const error = failure(() =>
      render(
        '{% for i in range(100) %}{% for j in range(100) %}{% endfor %}{% endfor %}',
        {},
        { limits: { maxLoopIterations: 2_000 } },
      ),
    );
    expect(error.code).toBe('TEMPLATE_LIMIT');
  });

  it('a loop within the cap runs', () => {
    expect(render('{% for i in range(5000) %}{% endfor %}done')).toBe('done');
  });

  it('output larger than the cap fails', () => {
    const big = 'x'.repeat(100_000);
    const error = failure(() => render('{% for i in range(20) %}{{ state.big }}{% endfor %}', { state: { big } }));
    expect(error.code).toBe('TEMPLATE_LIMIT');
    expect(error.details.limit).toBe('maxOutputChars');
  });

  it.each([
    ["{{ 'x' * 10**9 }}"],
    ['{{ [1, 2] * 10**9 }}'],
    [
      "{% set ns = namespace(s='xxxxxxxx') %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s | length }}",
    ],
    [
      '{% set ns = namespace(s=[1, 2, 3, 4]) %}{% for i in range(40) %}{% set ns.s = ns.s + ns.s %}{% endfor %}{{ ns.s | length }}',
    ],
    ["{{ state.big | replace('x', state.big) }}"],
    ["{{ state.big | replace('', state.big) }}"],
    ["{{ state.big.replace('x', state.big) }}"],
    ["{{ state.big.replace('', state.big, count=5000) }}"],
  ])('growth bomb: %s', (source) => {
    const error = failure(() => render(source, { state: { big: 'x'.repeat(2000) } }));
    expect(error.code).toBe('TEMPLATE_LIMIT');
  });

  it('infinite macro recursion stops at the call depth', () => {
    const error = failure(() => render('{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}'));
    expect(error.code).toBe('TEMPLATE_LIMIT');
    expect(error.details.limit).toBe('maxCallDepth');
  });

  it('exponential macro recursion stops at the evaluation-step cap', () => {
    const source = '{% macro f(n) %}{% if n > 0 %}{{ f(n - 1) }}{{ f(n - 1) }}{% endif %}{% endmacro %}{{ f(40) }}';
    const error = failure(() => render(source, {}, { limits: { maxEvaluationSteps: 50_000 } }));
    expect(error.code).toBe('TEMPLATE_LIMIT');
    expect(error.details.limit).toBe('maxEvaluationSteps');
  });

  it('limits are configurable', () => {
    const options = { limits: { maxLoopIterations: 10, maxOutputChars: 20 } };
    expect(failure(() => render('{% for i in range(11) %}{% endfor %}', {}, options)).code).toBe('TEMPLATE_LIMIT');
    expect(render('{% for i in range(10) %}{% endfor %}ok', {}, options)).toBe('ok');
    expect(failure(() => render("{{ 'x' * 21 }}", {}, options)).code).toBe('TEMPLATE_LIMIT');
    // A lone expression passes data on (not output), so it is not capped; text output is, on both paths.
    expect(render('{{ state.text }}', { state: { text: 'y'.repeat(21) } }, { limits: { maxOutputChars: 20 } })).toBe(
      'y'.repeat(21),
    );
    expect(
      render(
        '{{ state.text }}',
        { state: { text: 'y'.repeat(21) } },
        { limits: { maxOutputChars: 20 }, interpretOnly: true },
      ),
    ).toBe('y'.repeat(21));
    expect(
      failure(() =>
        render(
          '<{{ state.text }}>',
          { state: { text: 'y'.repeat(21) } },
          { limits: { maxOutputChars: 20 }, interpretOnly: true },
        ),
      ).code,
    ).toBe('TEMPLATE_LIMIT');
    expect(
      failure(() =>
        render('<{{ state.text }}>', { state: { text: 'y'.repeat(21) } }, { limits: { maxOutputChars: 20 } }),
      ).code,
    ).toBe('TEMPLATE_LIMIT');
  });

  it('bad limit values are refused', () => {
    expect(failure(() => resolveTemplateLimits({ maxLoopIterations: -1 })).code).toBe('INVALID_PARAMS');
    expect(failure(() => resolveTemplateLimits({ maxOutputChars: 1.5 })).code).toBe('INVALID_PARAMS');
    expect(resolveTemplateLimits({})).toEqual(DEFAULT_TEMPLATE_LIMITS);
    expect(DEFAULT_TEMPLATE_LIMITS).toMatchObject({ maxOutputChars: 1024 * 1024, maxLoopIterations: 100_000 });
  });
});

describe('safety: no way from a template into JS objects', () => {
  const state = { name: 'Ada', list: [1], nested: { a: 1 } };

  it.each([
    ['{{ state.constructor }}'],
    ["{{ ''.constructor }}"],
    ['{{ state.__proto__ }}'],
    ["{{ state['__proto__'] }}"],
    ["{{ state['constructor'] }}"],
    ['{{ state.nested.constructor.prototype }}'],
    ['{{ state.list.constructor }}'],
    ['{{ state.name.constructor }}'],
    ['{{ range.constructor }}'],
    ['{{ loop }}'],
    ['{{ state.toString }}'],
    ['{{ state.hasOwnProperty }}'],
    ['{{ state.items }}'],
    ['{{ process }}'],
    ['{{ globalThis }}'],
    ['{{ env }}'],
  ])('%s is undefined', (source) => {
    expect(render(source, { state })).toBeUndefined();
    expect(render(source, { state }, { interpretOnly: true })).toBeUndefined();
  });

  it('calling through the prototype chain fails as a template error, never a function', () => {
    for (const source of [
      "{{ state.constructor('return 1')() }}",
      "{{ ''.constructor.constructor('return process')() }}",
      '{{ state.__proto__.polluted }}',
    ]) {
      try {
        const value = render(source, { state });
        expect(typeof value).not.toBe('function');
        expect(value).toBeUndefined();
      } catch (error) {
        expect(AgentError.isInstance(error)).toBe(true);
        expect((error as AgentError).code).toBe('TEMPLATE_ERROR');
      }
    }
  });

  it('a template cannot pollute Object.prototype', () => {
    render("{% set ns = namespace() %}{% set ns.__proto__ = 'x' %}{{ {'__proto__': {'polluted': 1}} }}", { state });
    const lone = render("{{ {'__proto__': {'polluted': 1}, 'ok': 2} }}", { state }) as Record<string, unknown>;
    expect(Object.getPrototypeOf(lone)).toBe(Object.prototype);
    expect(lone).toEqual({ ok: 2 });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const parsed = render('{{ \'{"__proto__": {"polluted": 1}, "ok": 1}\' | fromjson }}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(parsed).toEqual({ ok: 1 });
  });

  it('a state with an own __proto__ key does not expose it', () => {
    const hostile = JSON.parse('{"__proto__": {"secret": 1}, "a": 1}') as Record<string, unknown>;
    expect(render('{{ state.__proto__ }}', { state: hostile })).toBeUndefined();
    expect(render('{{ state }}', { state: hostile })).toEqual({ a: 1 });
    expect(render('{{ state | tojson }}', { state: hostile })).toBe('{"a": 1}');
  });

  it('env is only what the host passed', () => {
    expect(render("{{ env.HOME | default('none') }}", {})).toBe('none');
    expect(render('{{ env.MODEL }}', { env: { MODEL: 'gpt' } })).toBe('gpt');
  });

  it('data containing template syntax is never re-parsed', () => {
    expect(render('Q: {{ state.q }}', { state: { q: '{{ secrets.key }}' }, secrets: { key: 'k' } })).toBe(
      'Q: {{ secrets.key }}',
    );
  });

  it('functions in the scope are not exposed', () => {
    expect(render('{{ state.fn }}', { state: { fn: () => 'called' } })).toBeUndefined();
    expect(failure(() => render('{{ state.fn() }}', { state: { fn: () => 'called' } })).code).toBe('TEMPLATE_ERROR');
  });
});
