import { describe, expect, it } from 'vitest';
import { Template } from '@huggingface/jinja';
import { compileTemplate } from './index.js';

/** The library's own renderer is the oracle for loop semantics (one-line templates: no whitespace options matter). */
function oracle(source: string, scope: Record<string, unknown>): unknown {
  try {
    return { text: new Template(source).render(scope) };
  } catch {
    return { failed: true };
  }
}

function ours(source: string, scope: Record<string, unknown>): unknown {
  try {
    return { text: compileTemplate(source, { node: 'loop' }, { interpretOnly: true }).render(scope) };
  } catch (error) {
    expect((error as { code?: string }).code).toBe('TEMPLATE_ERROR');
    return { failed: true };
  }
}

const scope = {
  xs: [1, 2, 3, 4, 5],
  words: ['a', 'b'],
  pairs: [
    ['a', 1],
    ['b', 2],
  ],
  dict: { k1: 'v1', k2: 'v2' },
  people: [
    { name: 'Ada', age: 36 },
    { name: 'Alan', age: 41 },
  ],
  empty: [],
};

describe('for loops match the library', () => {
  it.each([
    '{% for x in xs %}{{ x }},{% endfor %}',
    '{% for x in xs %}{{ loop.index }}{{ loop.index0 }}{{ loop.revindex }}{{ loop.revindex0 }}{{ loop.first }}{{ loop.last }}{{ loop.length }};{% endfor %}',
    '{% for x in words %}{{ loop.previtem }}<{{ x }}>{{ loop.nextitem }}|{% endfor %}',
    '{% for x in words %}{{ loop }}{% endfor %}',
    '{% for k, v in dict | items %}{{ k }}={{ v }};{% endfor %}',
    '{% for k, v in pairs %}{{ k }}{{ v }}{% endfor %}',
    '{% for k in dict %}{{ k }}{% endfor %}',
    '{% for x in xs if x > 2 %}{{ x }}/{{ loop.index }}/{{ loop.length }} {% endfor %}',
    '{% for p in people if p.age > 40 %}{{ p.name }}{% endfor %}',
    '{% for x in empty %}never{% else %}empty{% endfor %}',
    '{% for x in xs if x > 9 %}never{% else %}none matched{% endfor %}',
    '{% for x in xs %}{% if x == 2 %}{% continue %}{% endif %}{% if x == 4 %}{% break %}{% endif %}{{ x }}{% endfor %}',
    '{% for x in xs %}{% continue %}{% else %}else{% endfor %}',
    '{% for a in [1, 2] %}{% set outer = loop.index %}{% for b in [3, 4] %}{{ outer }}{{ loop.index }}{{ a }}{{ b }} {% endfor %}{% endfor %}',
    '{% set y = 0 %}{% for x in xs %}{% set y = x %}{% endfor %}{{ y }}',
    '{% set ns = namespace(total=0) %}{% for x in xs %}{% set ns.total = ns.total + x %}{% endfor %}{{ ns.total }}',
    '{% macro row(p) %}[{{ p.name }}]{% endmacro %}{% for p in people %}{{ row(p) }}{% endfor %}',
    '{% for i in range(3) %}{% for j in range(i) %}{{ i }}{{ j }} {% endfor %}{% endfor %}',
    '{% for x in words %}{{ x }}{% endfor %}{{ x }}',
    '{% for a, b in words %}{% endfor %}',
    '{% for a, b in [[1, 2, 3]] %}{% endfor %}',
    '{% for x in 42 %}{% endfor %}',
  ])('%s', (source) => {
    expect(ours(source, scope)).toEqual(oracle(source, scope));
  });

  it('counts iterations before the body runs', () => {
    const template = compileTemplate('{% for x in xs %}{% endfor %}', {}, { limits: { maxLoopIterations: 4 } });
    expect(() => template.render(scope)).toThrow(expect.objectContaining({ code: 'TEMPLATE_LIMIT' }));
  });

  it('break outside a loop is a template error', () => {
    expect(() => compileTemplate('{% break %}', {}).render({})).toThrow(
      expect.objectContaining({ code: 'TEMPLATE_ERROR' }),
    );
  });
});
