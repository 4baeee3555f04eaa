import { describe, expect, it } from 'vitest';
import { AgentError } from '../core/agent-error.js';
import { compileTemplate } from './index.js';
import type { TemplateOptions } from './types.js';

const where = { node: 'draft', field: 'with.prompt' };

/** Renders through the interpreter (the fast path has its own differential test). */
function render(source: string, scope: Record<string, unknown> = {}, options: TemplateOptions = {}): unknown {
  return compileTemplate(source, where, { interpretOnly: true, ...options }).render(scope);
}

function failure(action: () => unknown): AgentError {
  try {
    action();
  } catch (error) {
    expect(AgentError.isInstance(error)).toBe(true);
    return error as AgentError;
  }
  throw new Error('expected an AgentError');
}

const state = {
  name: 'Ada',
  count: 3,
  ratio: 0.25,
  done: false,
  nothing: null,
  tags: ['a', 'b', 'c'],
  profile: { city: 'Paris', langs: ['fr', 'en'] },
  errors: [{ message: 'too short' }, { message: 'no title' }],
};

describe('lone expressions render to native values', () => {
  it.each([
    ['{{ state.profile }}', { city: 'Paris', langs: ['fr', 'en'] }],
    ['{{ state.tags }}', ['a', 'b', 'c']],
    ['{{ state.count }}', 3],
    ['{{ state.ratio }}', 0.25],
    ['{{ state.done }}', false],
    ['{{ state.nothing }}', null],
    ['{{ state.missing }}', undefined],
    ['  {{ state.count * 2 }}\n', 6],
    ['{{- state.name -}}', 'Ada'],
    ["{{ {'a': [1, state.count], 'b': none} }}", { a: [1, 3], b: null }],
    ['{{ [state.name, 2] }}', ['Ada', 2]],
  ])('%s', (source, expected) => {
    const template = compileTemplate(source, where);
    expect(template.isLone).toBe(true);
    expect(template.render({ state })).toEqual(expected);
    expect(render(source, { state })).toEqual(expected);
  });

  it('mixed text and several expressions render to strings', () => {
    expect(compileTemplate('{{ state.count }} items', where).isLone).toBe(false);
    expect(compileTemplate('{{ state.a }}{{ state.b }}', where).isLone).toBe(false);
    expect(render('{{ state.count }} items', { state })).toBe('3 items');
    expect(render('{{ state.count }}{{ state.ratio }}', { state })).toBe('30.25');
    expect(render('Hi {{ state.name }}, you live in {{ state.profile.city }}.', { state })).toBe(
      'Hi Ada, you live in Paris.',
    );
    expect(render('{{ state.profile }}!', { state })).toBe('{"city": "Paris", "langs": ["fr", "en"]}!');
    expect(render('[{{ state.nothing }}][{{ state.missing }}][{{ state.done }}]', { state })).toBe('[][][false]');
  });

  it('keeps a trailing newline, as TEA does', () => {
    expect(render('Hello {{ state.name }}\n', { state })).toBe('Hello Ada\n');
  });

  it('renders twice with independent results', () => {
    const template = compileTemplate('{{ state.profile }}', where);
    const first = template.render({ state }) as { langs: string[] };
    first.langs.push('de');
    const second = template.render({ state }) as { langs: string[] };
    expect(second.langs).toEqual(['fr', 'en']);
    expect(state.profile.langs).toEqual(['fr', 'en']);
  });
});

describe('missing values and default', () => {
  it.each([
    ["{{ state.nope | default('x') }}", 'x'],
    ["{{ state.nope.deeper.still | default('x') }}", 'x'],
    ["{{ state.nothing | default('x') }}", null],
    ["{{ state.nothing | default('x', true) }}", 'x'],
    ["{{ state.done | default('x') }}", false],
    ["{{ state.done | d('x', true) }}", 'x'],
    ["{{ '' | default('x', boolean=true) }}", 'x'],
    ["{{ state.name | default('x') }}", 'Ada'],
    ['{{ state.nope | default }}', ''],
  ])('%s', (source, expected) => {
    expect(render(source, { state })).toEqual(expected);
  });
});

describe('filters', () => {
  it.each([
    ['{{ state.profile | tojson }}', '{"city": "Paris", "langs": ["fr", "en"]}'],
    ['{{ state.tags | json }}', '["a", "b", "c"]'],
    ['{{ state.tags | tojson(indent=2) }}', '[\n  "a",\n  "b",\n  "c"\n]'],
    ['{{ state.profile | tojson(2) }}', '{\n  "city": "Paris",\n  "langs": [\n    "fr",\n    "en"\n  ]\n}'],
    ['{{ {} | tojson }}|{{ [] | tojson(2) }}|{{ none | tojson }}|{{ (3 / 3) | tojson }}', '{}|[]|null|1.0'],
    ['{{ \'{"a": [1, 2]}\' | fromjson }}', { a: [1, 2] }],
    ["{{ 'not json' | fromjson }}", 'not json'],
    ['{{ (\'{"a": 1}\' | fromjson).a }}', 1],
    [
      '{{ state.tags | length }}|{{ state.name | length }}|{{ state.profile | length }}|{{ state.nope | length }}',
      '3|3|2|0',
    ],
    ['{{ state.tags | count }}', 3],
    ["{{ state.tags | join(', ') }}|{{ state.tags | join }}", 'a, b, c|abc'],
    ["{{ state.errors | join('; ', attribute='message') }}", 'too short; no title'],
    ['{{ state.name | upper }} {{ state.name | lower }} {{ 42 | upper }}', 'ADA ada 42'],
    ["{{ '  pad  ' | trim }}|{{ 'xxhixx' | trim('x') }}", 'pad|hi'],
    ["{{ 'hello wonderful world' | truncate(14, leeway=0) }}", 'hello...'],
    ["{{ 'hello wonderful world' | truncate(14, true, leeway=0) }}", 'hello wonde...'],
    ["{{ 'short' | truncate(14) }}", 'short'],
    ['{{ state.tags | first }}{{ state.tags | last }}{{ state.name | first }}', 'acA'],
    ['{{ [] | first }}', undefined],
    ["{{ state.errors | map(attribute='message') | list }}", ['too short', 'no title']],
    ["{{ state.errors | map(attribute='missing', default='?') | list }}", ['?', '?']],
    ["{{ state.tags | map('upper') | join }}", 'ABC'],
    [
      "{{ 'a-b-c' | replace('-', '+') }}|{{ 'a-b-c' | replace('-', '', 1) }}|{{ 'ab' | replace('', '.') }}",
      'a+b+c|ab-c|.a.b.',
    ],
    [
      "{{ '42' | int }}|{{ '3.9' | int }}|{{ -3.9 | int }}|{{ 'x' | int }}|{{ 'x' | int(7) }}|{{ 'ff' | int(base=16) }}|{{ true | int }}",
      '42|3|-3|0|7|255|1',
    ],
    ["{{ '2.5' | float }}|{{ 2 | float }}|{{ 'x' | float }}|{{ 'x' | float(1.5) }}", '2.5|2.0|0.0|1.5'],
    ["{{ 3 | string ~ 'x' }}|{{ state.tags | string }}|{{ none | string }}", '3x|["a", "b", "c"]|'],
    [
      '{{ 2.5 | round }}|{{ 3.5 | round }}|{{ 3.14159 | round(2) }}|{{ 3.1 | round(method="ceil") }}|{{ 3.9 | round(0, "floor") }}',
      '2.0|4.0|3.14|4.0|3.0',
    ],
    ['{{ 3.7 | round | int }}', 4],
    ['{{ state.tags | reverse | join }}|{{ [3, 1, 2] | sort | join }}|{{ [1, 1, 2] | unique | join }}', 'cba|123|12'],
    ['{{ -4 | abs }}|{{ "hello world" | title }}|{{ "hello" | capitalize }}', '4|Hello World|Hello'],
    ['{{ state.profile | items | list | length }}', 2],
    [
      "{{ [1, 2, 3.5] | sum }}|{{ state.errors | map(attribute='message') | map('length') | sum }}|{{ [{'n': 2}, {'n': 3}] | sum(attribute='n') }}",
      '6.5|17|5',
    ],
    [
      "{{ [3, 1, 2] | min }}|{{ [3, 1, 2] | max }}|{{ ['b', 'A', 'c'] | max }}|{{ [{'n': 2}, {'n': 3}] | max(attribute='n') }}|{{ [] | min }}",
      '1|3|c|3|',
    ],
    [
      "{{ [0, 1, '', 'a', none] | select | list }}|{{ [1, 2, 3, 4] | select('odd') | join }}|{{ [1, none, 2] | reject('none') | join }}",
      '[1, "a"]|13|12',
    ],
    ["{{ 'one  two\nthree' | wordcount }}", 3],
    ["{{ ', '.join(state.tags) }}|{{ '-'.join([1, 2]) }}", 'a, b, c|1-2'],
    [
      "{{ '%.2f' | format(state.ratio) }}|{{ '%s is %d' | format(state.name, 36.6) }}|{{ '%05.1f|%-4s|%+d|%3s|%%' | format(2.25, 'ab', 3, 'x') }}",
      '0.25|Ada is 36|002.2|ab  |+3|  x|%',
    ],
    [
      "{{ '%s/%s' % (state.count, 4) }}|{{ 'score: %.1f' % state.ratio }}|{{ 7 % 4 }}|{{ 7.5 % 2 }}|{{ -7 % 3 }}",
      '3/4|score: 0.2|3|1.5|2',
    ],
  ])('%s', (source, expected) => {
    expect(render(source, { state })).toEqual(expected);
  });

  it('an unknown filter is a TEMPLATE_ERROR at compile time, with a suggestion', () => {
    const error = failure(() => compileTemplate('Hi {{ state.name | uper }}', where));
    expect(error.code).toBe('TEMPLATE_ERROR');
    expect(error.location.node).toBe('draft');
    expect(error.location.field).toBe('with.prompt');
    expect(error.details.filter).toBe('uper');
    expect(error.message).toContain("'upper'");
  });

  it('an unknown test is a TEMPLATE_ERROR at compile time', () => {
    expect(failure(() => compileTemplate('{{ x is frobbed }}', where)).code).toBe('TEMPLATE_ERROR');
  });
});

describe('tests, operators and blocks', () => {
  it.each([
    ['{{ state.name is defined }}|{{ state.nope is defined }}|{{ state.nope is undefined }}', 'true|false|true'],
    [
      '{{ state.nothing is none }}|{{ state.nope is none }}|{{ state.name is none }}|{{ state.name is not none }}',
      'true|true|false|true',
    ],
    [
      '{{ state.count is number }}|{{ state.name is string }}|{{ state.profile is mapping }}|{{ state.count is odd }}',
      'true|true|true|true',
    ],
    [
      "{{ 'a' in state.tags }}|{{ 'z' not in state.tags }}|{{ 'Ad' in state.name }}|{{ 'city' in state.profile }}",
      'true|true|true|true',
    ],
    ['{{ not state.done }}|{{ state.done or state.count }}|{{ state.count > 2 and state.ratio < 1 }}', 'true|3|true'],
    [
      '{{ state.count == 3 }}|{{ state.count != 3 }}|{{ state.count >= 4 }}|{{ state.count <= 3 }}',
      'true|false|false|true',
    ],
    ["{{ state.name ~ '!' ~ state.count }}", 'Ada!3'],
    ["{{ 'a' ~ state.nothing ~ state.nope ~ state.tags }}|{{ 1 ~ 2 }}", 'a["a", "b", "c"]|12'],
    ["{{ state.tags | bool }}|{{ [] | bool }}|{{ '' | bool }}|{{ 'no' | bool }}", 'true|false|false|true'],
    ['{{ 1.5 is float }}|{{ 1 is float }}|{{ state.tags is list }}|{{ state.name is list }}', 'true|false|true|false'],
    [
      '{{ state.count + 1 }}|{{ state.count - 5 }}|{{ state.count * 2 }}|{{ 7 / 2 }}|{{ 7 // 2 }}|{{ 7 % 4 }}|{{ 2 ** 10 }}',
      '4|-2|6|3.5|3|3|1024',
    ],
    ["{{ '-' * 5 }}|{{ 2 * 'ab' }}|{{ [1] * 3 }}", '-----|abab|[1, 1, 1]'],
    [
      '{{ state.tags[0] }}{{ state.tags[-1] }}{{ state.profile["city"] }}{{ state.tags[1:] | join }}{{ state.name[::-1] }}',
      'acParisbcadA',
    ],
    ["{{ 'yes' if state.count > 2 else 'no' }}", 'yes'],
    ['{% if state.count > 5 %}big{% elif state.count > 2 %}mid{% else %}small{% endif %}', 'mid'],
    [
      '{% for tag in state.tags %}{{ loop.index }}={{ tag }}{% if not loop.last %},{% endif %}{% endfor %}',
      '1=a,2=b,3=c',
    ],
    ['{% for key, value in state.profile | items %}{{ key }};{% endfor %}', 'city;langs;'],
    ['{% for x in state.nope %}x{% else %}empty{% endfor %}', 'empty'],
    ['{% for x in state.nope if x %}x{% else %}empty{% endfor %}', 'empty'],
    ['{% for x in state.nothing %}x{% else %}empty{% endfor %}', 'empty'],
    ['{% for c in state.name %}{{ c }}.{% endfor %}', 'A.d.a.'],
    ['{% for x in state.tags if x != "b" %}{{ x }}{% endfor %}', 'ac'],
    ['{% for i in range(3) %}{{ i }}{% endfor %}|{% for i in range(1, 7, 2) %}{{ i }}{% endfor %}', '012|135'],
    ['{% set total = state.count * 2 %}{{ total }}', '6'],
    [
      '{% set ns = namespace(sum=0) %}{% for i in [1, 2, 3] %}{% set ns.sum = ns.sum + i %}{% endfor %}{{ ns.sum }}',
      '6',
    ],
    ['{% macro greet(who) %}Hi {{ who }}{% endmacro %}{{ greet(state.name) }}', 'Hi Ada'],
    [
      '{{ state.name.upper() }}|{{ state.profile.get("city") }}|{{ state.profile.keys() | list | length }}',
      'ADA|Paris|2',
    ],
    ['{# a comment #}ok', 'ok'],
    [
      "{{ 'a-b-c'.replace('-', '+') }}|{{ 'a-b-c'.replace('-', '+', 1) }}|{{ 'a-b-c'.replace('-', '', count=1) }}",
      'a+b+c|a+b-c|ab-c',
    ],
  ])('%s', (source, expected) => {
    expect(render(source, { state })).toEqual(expected);
  });
});

describe('errors name the node, the field and the expression', () => {
  it('syntax errors fail at compile time', () => {
    const error = failure(() => compileTemplate('Hello {{ state.name }} and {{ state.count + }}', where));
    expect(error.code).toBe('TEMPLATE_ERROR');
    expect(error.location).toMatchObject({ node: 'draft', field: 'with.prompt' });
    expect(error.details.expression).toBe('{{ state.count + }}');
  });

  it.each(['{{ state.name ', '{% if state.x %}never closed', '{% for %}{% endfor %}', '{{ }}', '{% endif %}'])(
    'syntax error: %s',
    (source) => {
      expect(failure(() => compileTemplate(source, where)).code).toBe('TEMPLATE_ERROR');
    },
  );

  it('render errors are TEMPLATE_ERROR with the failing expression', () => {
    const template = compileTemplate('ok {{ state.name }} then {{ state.count - state.name }}', where);
    const error = failure(() => template.render({ state }));
    expect(error.code).toBe('TEMPLATE_ERROR');
    expect(error.location).toMatchObject({ node: 'draft', field: 'with.prompt' });
    expect(error.details.expression).toBe('{{ state.count - state.name }}');
  });

  it.each([
    ['{{ state.nothing + 1 }}'],
    ['{{ state.missing() }}'],
    ['{{ range }}'],
    ['{{ state.name | round }}'],
    ["{{ raise_exception('stop here') }}"],
    ['{% for x in state.count %}{% endfor %}'],
  ])('never a raw JS error: %s', (source) => {
    const error = failure(() => render(source, { state }));
    expect(error.code).toBe('TEMPLATE_ERROR');
  });

  it('a non-string source is a TEMPLATE_ERROR', () => {
    expect(failure(() => compileTemplate(42 as unknown as string, where)).code).toBe('TEMPLATE_ERROR');
  });
});
