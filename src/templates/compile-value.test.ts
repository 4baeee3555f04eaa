import { describe, expect, it } from 'vitest';
import { AgentError } from '../core/agent-error.js';
import { compileValue, hasTemplateSyntax } from './index.js';

const where = { node: 'call', field: 'with' };
const scope = {
  state: { name: 'Ada', count: 2, doc: { title: 'T', tags: ['x'] } },
  variables: { model: 'm-1', max: 5 },
  settings: { llm: { temperature: 0.2 } },
  secrets: { key: 's3cret' },
};

describe('compileValue', () => {
  it('walks deep structures and renders each templated string', () => {
    const value = compileValue(
      {
        model: '{{ variables.model }}',
        max_steps: '{{ variables.max }}',
        temperature: '{{ settings.llm.temperature }}',
        messages: [
          { role: 'system', content: 'You help {{ state.name }}.' },
          { role: 'user', content: '{{ state.doc }}' },
        ],
        options: { nested: { deeper: ['{{ state.count + 1 }}', 'plain', 7, true, null] } },
        api_key: '{{ secrets.key }}',
        conditional: '{% if state.count > 1 %}many{% else %}one{% endif %}',
      },
      where,
    );
    expect(value.isStatic).toBe(false);
    expect(value.render(scope)).toEqual({
      model: 'm-1',
      max_steps: 5,
      temperature: 0.2,
      messages: [
        { role: 'system', content: 'You help Ada.' },
        { role: 'user', content: { title: 'T', tags: ['x'] } },
      ],
      options: { nested: { deeper: [3, 'plain', 7, true, null] } },
      api_key: 's3cret',
      conditional: 'many',
    });
  });

  it('is static when nothing is templated, and still renders fresh copies', () => {
    const source = { a: [1, { b: 'text with } and { but no template' }], c: null, d: '$' + '{not jinja}' };
    const value = compileValue(source, where);
    expect(value.isStatic).toBe(true);
    expect(value.source).toBe(source);
    const first = value.render(scope) as { a: unknown[] };
    expect(first).toEqual(source);
    expect(first).not.toBe(source);
    first.a.push('changed');
    expect(source.a).toHaveLength(2);
    expect((value.render(scope) as { a: unknown[] }).a).toHaveLength(2);
  });

  it('scalars pass through', () => {
    for (const scalar of [42, true, null, 'plain', undefined]) {
      const value = compileValue(scalar, where);
      expect(value.isStatic).toBe(true);
      expect(value.render(scope)).toBe(scalar);
    }
    expect(compileValue('{{ state.count }}', where).render(scope)).toBe(2);
  });

  it('two renders never share objects', () => {
    const value = compileValue({ doc: '{{ state.doc }}', list: ['{{ state.name }}'] }, where);
    const first = value.render(scope) as { doc: { tags: string[] }; list: string[] };
    first.doc.tags.push('mutated');
    first.list.push('mutated');
    const second = value.render(scope) as { doc: { tags: string[] }; list: string[] };
    expect(second.doc.tags).toEqual(['x']);
    expect(second.list).toEqual(['Ada']);
    expect(scope.state.doc.tags).toEqual(['x']);
  });

  it('never writes __proto__, constructor or prototype keys', () => {
    const source = JSON.parse(
      '{"__proto__": {"polluted": "{{ state.name }}"}, "constructor": "x", "prototype": 1, "ok": "{{ state.name }}", "inner": {"__proto__": {"p": 1}, "fine": 1}}',
    );
    const rendered = compileValue(source, where).render(scope) as Record<string, unknown>;
    expect(Object.keys(rendered)).toEqual(['ok', 'inner']);
    expect(Object.getPrototypeOf(rendered)).toBe(Object.prototype);
    expect(rendered.inner).toEqual({ fine: 1 });
    expect(Object.getPrototypeOf(rendered.inner)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const staticSource = JSON.parse('{"__proto__": {"p": 1}, "fine": 1}');
    const copy = compileValue(staticSource, where).render(scope) as object;
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(copy).toEqual({ fine: 1 });
  });

  it('errors name the field path inside the value', () => {
    let caught: unknown;
    try {
      compileValue(
        {
          messages: [
            { role: 'user', content: 'ok' },
            { role: 'user', content: '{{ state.x | nope }}' },
          ],
        },
        where,
      );
    } catch (error) {
      caught = error;
    }
    expect(AgentError.isInstance(caught)).toBe(true);
    const error = caught as AgentError;
    expect(error.code).toBe('TEMPLATE_ERROR');
    expect(error.location).toMatchObject({ node: 'call', field: 'with.messages[1].content' });
  });

  it('render errors carry the field path too', () => {
    const value = compileValue({ a: { b: '{{ state.count - state.name }}' } }, { node: 'n' });
    try {
      value.render(scope);
      expect.unreachable();
    } catch (error) {
      expect((error as AgentError).code).toBe('TEMPLATE_ERROR');
      expect((error as AgentError).location).toMatchObject({ node: 'n', field: 'a.b' });
    }
  });

  it('hasTemplateSyntax looks for {{ and {%', () => {
    expect(hasTemplateSyntax('a {{ b }}')).toBe(true);
    expect(hasTemplateSyntax('{% if x %}y{% endif %}')).toBe(true);
    expect(hasTemplateSyntax('{ "json": true }')).toBe(false);
  });
});
