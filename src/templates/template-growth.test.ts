/**
 * Templates that try to build more text or list items than any limit allows (issue 12, point 3):
 * every way a value becomes text is written into a capped writer, and every list built by `*` or
 * `+` is charged for all it holds (shared lists counted each time) before it is built. Each case
 * must end with TEMPLATE_LIMIT after bounded work: the writer's character count is watched, and
 * the generous test timeout only proves that it ends.
 */
import { describe, expect, it } from 'vitest';
import { AgentError } from '../core/agent-error.js';
import { compileTemplate } from './index.js';
import { toRuntimeValue } from './jinja-runtime.js';
import { TextWriter } from './text-writer.js';
import type { TemplateOptions } from './types.js';

const where = { node: 'grow', field: 'with.prompt' };
/** Smaller caps keep each case quick on a busy machine; the shapes are the same at any scale. */
const SMALL: TemplateOptions = { limits: { maxOutputChars: 10_000, maxWorkUnits: 200_000 } };
const CAP = SMALL.limits!.maxOutputChars!;
const SLOW = 60_000;

/** The AgentError `action` throws (anything else, or nothing, fails the test). */
function failure(action: () => unknown): AgentError {
  let caught: unknown;
  try {
    action();
  } catch (error) {
    caught = error;
  }
  if (!AgentError.isInstance(caught)) throw new Error(`expected an AgentError, got ${String(caught)}`);
  return caught;
}

function render(source: string, scope: Record<string, unknown> = {}, options: TemplateOptions = {}): unknown {
  return compileTemplate(source, where, options).render(scope);
}

/** Characters written by every TextWriter during `action` (the printing work done). */
function writtenChars(action: () => void): number {
  let written = 0;
  // A plain wrapper, not a spy: a spy would keep every call's arguments.
  const original = Object.getOwnPropertyDescriptor(TextWriter.prototype, 'write')!;
  Object.defineProperty(TextWriter.prototype, 'write', {
    ...original,
    value(this: TextWriter, text: string) {
      written += text.length;
      (original.value as (text: string) => void).call(this, text);
    },
  });
  try {
    action();
  } finally {
    Object.defineProperty(TextWriter.prototype, 'write', original);
  }
  return written;
}

/** Fails with TEMPLATE_LIMIT at the node, after at most `bound` printed characters. */
function expectBoundedLimit(source: string, bound = 4 * CAP, options: TemplateOptions = SMALL): AgentError {
  let error: AgentError | undefined;
  const written = writtenChars(() => {
    error = failure(() => render(source, {}, options));
  });
  expect(error!.code).toBe('TEMPLATE_LIMIT');
  expect(error!.location).toMatchObject({ node: 'grow', field: 'with.prompt' });
  expect(written).toBeLessThanOrEqual(bound);
  return error!;
}

const MILLION = '{% set x = [1] * 1000000 %}';

describe("the issue's examples", () => {
  it.each([
    [`${MILLION}{{ [x] * 1000000 }}`],
    [`${MILLION}{{ ([x] * 1000000) | join }}`],
    [`${MILLION}{{ ([x] * 1000000) | string }}`],
    [`${MILLION}{{ ([x] * 1000000) | upper }}`],
  ])(
    '%s ends with TEMPLATE_LIMIT before building',
    (source) => {
      const error = expectBoundedLimit(source, 0, {});
      // Refused at the multiplication: a million copies of a million items is charged first.
      expect(error.details.limit).toBe('maxWorkUnits');
    },
    SLOW,
  );
});

describe('printing shared lists is capped by the writer', () => {
  // Each level doubles what printing walks, while the lists themselves stay two items long.
  const DOUBLED = `{% set x = [1] * 10000 %}{% set a = [x, x] %}{% set b = [a, a] %}{% set c = [b, b] %}{% set d = [c, c] %}`;

  it.each([
    [`${DOUBLED}{{ d }}`],
    [`${DOUBLED}{{ d | join(', ') }}`],
    [`${DOUBLED}{{ d | string }}`],
    [`${DOUBLED}{{ d | lower }}`],
    [`${DOUBLED}{{ d | capitalize }}`],
    [`${DOUBLED}{{ d | tojson }}`],
    [`${DOUBLED}{{ d | tojson(indent=2) }}`],
    [`${DOUBLED}{{ d | replace('1', '2') }}`],
    [`${DOUBLED}{{ d | trim }}`],
    [`${DOUBLED}{{ d | indent(2) }}`],
    [`${DOUBLED}{{ d | truncate(10) }}`],
    [`${DOUBLED}{{ d | wordcount }}`],
    [`${DOUBLED}{{ d | map('string') | list | length }}`],
    [`${DOUBLED}{{ d | map('upper') | first }}`],
    [`${DOUBLED}{{ d ~ '' }}`],
    [`${DOUBLED}{{ 'items: ' ~ d }}`],
    [`${DOUBLED}{{ '%s' % d }}`],
    [`${DOUBLED}{{ '%s' | format(d) }}`],
    [`${DOUBLED}{{ ', '.join(d) }}`],
    [`${DOUBLED}{{ d | join(attribute='0') }}`],
    [`${DOUBLED}{% set text %}{{ d }}{% endset %}{{ text | length }}`],
    [`${DOUBLED}{% macro show(v) %}{{ v }}{% endmacro %}{{ show(d) }}`],
    [`${DOUBLED}{% for item in [d] %}{{ item }}{% endfor %}`],
    [`${DOUBLED}{% filter upper %}{{ d }}{% endfilter %}`],
  ])(
    '%s',
    (source) => {
      expectBoundedLimit(source);
    },
    SLOW,
  );

  it(
    'a namespace doubled sixty times prints no further than the cap',
    () => {
      const source = '{% set ns = namespace(a=[1]) %}{% for i in range(60) %}{% set ns.a = [ns.a, ns.a] %}{% endfor %}';
      for (const tail of ['{{ ns.a }}', '{{ ns.a | tojson }}', '{{ ns.a | join }}', "{{ ns.a ~ '' }}"])
        expectBoundedLimit(source + tail);
      // Multiplying it counts 2^60 walked values: refused before any copy is made.
      expect(expectBoundedLimit(`${source}{{ [ns.a] * 2 }}`, 0).details.limit).toBe('maxWorkUnits');
    },
    SLOW,
  );

  it(
    'a dict doubled in a loop, or a filter block making a list, prints no further than the cap',
    () => {
      const source =
        "{% set ns = namespace(d={'k': 1}) %}{% for i in range(60) %}{% set ns.d = {'a': ns.d, 'b': ns.d} %}{% endfor %}";
      for (const tail of [
        '{{ ns.d }}',
        '{{ ns.d | tojson }}',
        "{{ ns.d | dictsort | join(',') }}",
        '{{ ns.d.items() | list }}',
      ])
        expectBoundedLimit(source + tail);
      expectBoundedLimit("{% filter list %}{{ 'x' * 9000 }}{% endfilter %}");
      expect(render('{% filter list %}ab{% endfilter %}')).toBe('["a", "b"]');
    },
    SLOW,
  );

  it('a namespace that holds itself is refused, not walked forever', () => {
    for (const print of ['{{ ns }}', '{{ ns | tojson }}', '{{ ns | string }}', "{{ [ns] | join(',') }}"]) {
      expect(failure(() => render(`{% set ns = namespace() %}{% set ns.self = ns %}${print}`)).code).toBe(
        'TEMPLATE_LIMIT',
      );
    }
    expect(failure(() => render('{% set ns = namespace() %}{% set ns.self = ns %}{{ [ns] * 3 }}')).code).toBe(
      'TEMPLATE_LIMIT',
    );
  });

  it(
    'a lone expression is copied out with every copied value charged',
    () => {
      // Lone expressions pass native values on (no output cap); the copy walks shared lists each time.
      expect(failure(() => render('{{ [[1] * 1000000] * 20 }}')).details.limit).toBe('maxWorkUnits');
      const a = Array.from({ length: 100_000 }, () => 1);
      const shared = { a, b: [a, a, a, a, a, a, a, a, a, a] };
      for (const source of [
        '{{ state.b }}',
        '{{ [state.b, state.b] }}',
        '{{ {"x": state.b, "y": state.b} }}',
        '{{ state }}',
      ]) {
        for (const interpretOnly of [false, true]) {
          const error = failure(() =>
            render(source, { state: shared }, { limits: { maxWorkUnits: 500_000 }, interpretOnly }),
          );
          expect(error.code).toBe('TEMPLATE_LIMIT');
          expect(error.details.limit).toBe('maxWorkUnits');
          expect(error.location).toMatchObject({ node: 'grow' });
        }
      }
      // Within the budget the copy is made as before.
      expect(render('{{ state.b }}', { state: { b: [a.slice(0, 2), a.slice(0, 2)] } })).toEqual([
        [1, 1],
        [1, 1],
      ]);
      expect(render('{% set a = [1, 2] %}{{ [a, a] | length }}')).toBe('2');
    },
    SLOW,
  );
});

describe('builders charge their work to the render', () => {
  const BUILD: TemplateOptions = { limits: { maxOutputChars: 10_000, maxWorkUnits: 100_000 } };

  it.each([
    // String multiplication, alone and repeated.
    ["{{ 'ab' * 10**12 }}", 'maxOutputChars'],
    ["{{ 10**12 * 'ab' }}", 'maxOutputChars'],
    ["{% for i in range(100) %}{% set s = 'x' * 10000 %}{% endfor %}", 'maxWorkUnits'],
    // Lists concatenated or multiplied, with sharing.
    [`{% set x = [1] * 10000 %}{% for i in range(20) %}{% set y = [x] * 1 %}{% endfor %}`, 'maxWorkUnits'],
    [`{% set x = [1] * 10000 %}{% set y = [x, x, x, x] %}{{ (y + y + y + y + y) | length }}`, 'maxWorkUnits'],
    [
      `{% set ns = namespace(s=[[1] * 1000]) %}{% for i in range(40) %}{% set ns.s = ns.s + ns.s %}{% endfor %}`,
      'maxWorkUnits',
    ],
    // Filters and methods that build, run many times under the per-string cap.
    ["{% set s = 'x' * 9000 %}{% for i in range(100) %}{% set t = s | upper %}{% endfor %}", 'maxWorkUnits'],
    ["{% set s = 'x' * 9000 %}{% for i in range(100) %}{% set t = s.upper() %}{% endfor %}", 'maxWorkUnits'],
    ["{% set s = 'x y' * 3000 %}{% for i in range(100) %}{% set t = s.split(' ') %}{% endfor %}", 'maxWorkUnits'],
    ["{% set s = 'x' * 9000 %}{% for i in range(100) %}{% set t = s | title %}{% endfor %}", 'maxWorkUnits'],
    [
      "{% set s = 'x' * 9000 %}{% for i in range(100) %}{% set t = s | replace('x', 'y') %}{% endfor %}",
      'maxWorkUnits',
    ],
    ["{% set s = 'x' * 9000 %}{% for i in range(100) %}{% set t = s | list %}{% endfor %}", 'maxWorkUnits'],
    ['{% set l = [1] * 9000 %}{% for i in range(100) %}{% set t = l | reverse %}{% endfor %}', 'maxWorkUnits'],
    ['{% set l = [1] * 9000 %}{% for i in range(100) %}{% set t = l | select %}{% endfor %}', 'maxWorkUnits'],
    [
      "{% set l = [1] * 9000 %}{% for i in range(100) %}{% set t = l | map('string') | list %}{% endfor %}",
      'maxWorkUnits',
    ],
    ['{% set l = range(9000) | list %}{% for i in range(100) %}{% set t = l | sort %}{% endfor %}', 'maxWorkUnits'],
    ["{% set s = 'x' * 10000 %}{{ s | list | sort | length }}", 'maxWorkUnits'],
    // Scans of a whole text or list, repeated.
    ["{% set s = 'x' * 10000 %}{% for i in range(1000) %}{% if 'zz' in s %}{% endif %}{% endfor %}", 'maxWorkUnits'],
    ['{% set l = [1] * 10000 %}{% for i in range(1000) %}{% if 2 in l %}{% endif %}{% endfor %}', 'maxWorkUnits'],
    ["{% set s = 'x' * 10000 %}{% for i in range(1000) %}{% set t = s[:3] %}{% endfor %}", 'maxWorkUnits'],
    ["{% set s = 'x' * 10000 %}{% for i in range(1000) %}{% set t = s | wordcount %}{% endfor %}", 'maxWorkUnits'],
    [
      "{% set s = 'x' * 10000 %}{% set s2 = 'x' * 10000 %}{% for i in range(1000) %}{% if s == s2 %}{% endif %}{% endfor %}",
      'maxWorkUnits',
    ],
    ["{% set s = 'x' * 10000 %}{% for i in range(1000) %}{% if s is lower %}{% endif %}{% endfor %}", 'maxWorkUnits'],
    ["{% set s = '1' * 10000 %}{% for i in range(1000) %}{% set n = s | int %}{% endfor %}", 'maxWorkUnits'],
    ["{% set s = '1' * 10000 %}{% for i in range(1000) %}{% set n = s | float %}{% endfor %}", 'maxWorkUnits'],
    [
      "{% set s = 'x' * 10000 %}{% for i in range(1000) %}{% if s.startswith(s) %}{% endif %}{% endfor %}",
      'maxWorkUnits',
    ],
    [
      '{% set l = [1] * 10000 %}{% macro f() %}{{ varargs | length }}{% endmacro %}{% for i in range(1000) %}{% set n = f(*l) %}{% endfor %}',
      'maxWorkUnits',
    ],
    ["{% set s = 'x' * 10000 %}{% for i in range(1000) %}{% set t = s | join %}{% endfor %}", 'maxWorkUnits'],
    // Walks of a whole list by filters and functions that build little or nothing.
    ['{% set l = [1] * 10000 %}{% for i in range(1000) %}{% set t = l | sum %}{% endfor %}', 'maxWorkUnits'],
    ['{% set l = [1] * 10000 %}{% for i in range(1000) %}{% set t = l | max %}{% endfor %}', 'maxWorkUnits'],
    ['{% set l = [1] * 10000 %}{% for i in range(1000) %}{% set t = l | unique %}{% endfor %}', 'maxWorkUnits'],
    [
      "{% set l = [1] * 10000 %}{% for i in range(1000) %}{% set t = l | map('int') | first %}{% endfor %}",
      'maxWorkUnits',
    ],
    [
      "{% set p = [['a', 1]] * 10000 %}{% for i in range(1000) %}{% set t = namespace(p) %}{% endfor %}",
      'maxWorkUnits',
    ],
  ])(
    '%s',
    (source, limit) => {
      const error = failure(() => render(source, {}, BUILD));
      expect(error.code).toBe('TEMPLATE_LIMIT');
      expect(error.details.limit).toBe(limit);
    },
    SLOW,
  );

  it('first and last of a text read one character, not the whole text', () => {
    const source =
      "{% set s = 'é' ~ 'x' * 9000 ~ '😀' %}{% for i in range(1000) %}{% set a = s | first %}{% set b = s | last %}{% endfor %}{{ s | first }}{{ s | last }}";
    expect(render(source, {}, { limits: { maxOutputChars: 10_000, maxWorkUnits: 100_000 } })).toBe('é😀');
  });

  it('the same text measured again is not scanned again', () => {
    // `length` on one string value is counted once and remembered, so a loop reading it is cheap.
    const source =
      "{% set s = 'x' * 1000000 %}{% for i in range(1000) %}{% if s | length > 5 %}{% endif %}{% endfor %}ok";
    expect(render(source, {}, { limits: { maxWorkUnits: 3_000_000 } })).toBe('ok');
  });

  it('the work budget is configurable and ordinary templates stay far below it', () => {
    const items = Array.from({ length: 200 }, (_, index) => ({ name: `item ${index}`, tags: ['a', 'b'] }));
    const source =
      "{% for item in state.items %}- {{ item.name | upper }} ({{ item.tags | join(', ') }}) {{ item | tojson }}\n{% endfor %}";
    const text = render(source, { state: { items } }, { limits: { maxWorkUnits: 100_000 } }) as string;
    expect(text.split('\n')).toHaveLength(201);
    expect(failure(() => render(source, { state: { items } }, { limits: { maxWorkUnits: 1_000 } })).details.limit).toBe(
      'maxWorkUnits',
    );
  });
});

describe('huge ranges and width arguments', () => {
  it.each([
    ['{{ range(10**12) | length }}'],
    ['{{ range(0, 10**15, 2) | list | length }}'],
    ['{{ range(0 - 10**12, 0) | join }}'],
    ['{% for i in range(10**12) %}{% endfor %}'],
    ["{% for c in 'x' * 1000000 %}{% endfor %}"],
  ])('%s is refused before it is built', (source) => {
    expect(failure(() => render(source)).details.limit).toBe('maxLoopIterations');
  });

  it.each([
    ["{{ 'a\\nb' | indent(10**9) }}"],
    ["{{ 'a\\nb' | indent(500000000, true) }}"],
    ["{{ ('a\\n' * 500000) | indent }}"],
    ["{{ ('a\\n' * 1000) | indent('x' * 1000000) }}"],
    ["{{ '%1000000000d' % 1 }}"],
    ["{{ '%-99999999999s|' % 'a' }}"],
    ["{{ '%0999999999.2f' % 1.5 }}"],
    ["{{ '%600000s%600000s' % ('a', 'b') }}"],
    ["{{ '%s%s%s' % (('x' * 500000), ('x' * 500000), ('x' * 500000)) }}"],
    ["{{ '%1000000000s' | format('a') }}"],
  ])('%s ends with TEMPLATE_LIMIT', (source) => {
    const error = failure(() => render(source));
    expect(error.code).toBe('TEMPLATE_LIMIT');
    expect(error.details.limit).toBe('maxOutputChars');
  });

  it('builders the library lacks are refused when the agent loads', () => {
    for (const source of [
      "{{ 'a' | center(10**9) }}",
      "{{ 'a b' | wordwrap(10**9) }}",
      '{{ range(10) | batch(10**9) }}',
      '{{ range(10) | slice(10**9) }}',
    ]) {
      const error = failure(() => compileTemplate(source, where));
      expect(error.code).toBe('TEMPLATE_ERROR');
      expect(error.message).toContain('unknown filter');
    }
  });

  it('widths within the cap still pad, as in Python', () => {
    expect(render("{{ '%2000s' % 'a' }}")).toBe(' '.repeat(1999) + 'a');
    expect(render("{{ '%-5s|' % 'ab' }}")).toBe('ab   |');
    expect(render("{{ 'a\\nb' | indent(3) }}")).toBe('a\n   b');
    expect(render("{{ 'a\\n\\nb' | indent('> ', true, true) }}")).toBe('> a\n> \n> b');
    expect(render("{{ 'a\\nb' | indent }}")).toBe('a\n    b');
    expect(failure(() => render("{{ 'a' | indent(-1) }}")).code).toBe('TEMPLATE_ERROR');
  });

  it('tojson indents and truncate lengths stay harmless when huge', () => {
    expect(render('{{ [1] | tojson(indent=10**9) }}')).toBe('[\n' + ' '.repeat(16) + '1\n]');
    expect(render("{{ 'abc' | truncate(10**12) }}")).toBe('abc');
  });
});

describe("printf-style formatting (issue 12, point 10: '%.500e')", () => {
  it.each([
    ["{{ '%.500e' % 1.5 }}"],
    ["{{ '%.101f' % 2 }}"],
    ["{{ '%.500E' | format(3) }}"],
    ["{{ 'x=%10.200e' % 1.5 }}"],
  ])('%s is a TEMPLATE_ERROR naming the precision', (source) => {
    const error = failure(() => render(source));
    expect(error.code).toBe('TEMPLATE_ERROR');
    expect(error.message).toMatch(/format: precision \d+ in '%[\d.]+[efE]' is too large \(at most 100 digits\)/);
    expect(error.message).not.toMatch(/toExponential|toFixed|argument must be between/);
    expect(error.location).toMatchObject({ node: 'grow', field: 'with.prompt' });
  });

  it('precisions up to 100 work, and %s precision only cuts', () => {
    expect(render("{{ '%.2e' % 12345.678 }}")).toBe('1.23e+04');
    expect(render("{{ '%.100f' % 0.5 }}")).toBe('0.' + '5' + '0'.repeat(99));
    expect(render("{{ '%.3s' % 'abcdef' }}")).toBe('abc');
    expect(render("{{ '%.999999999s' % 'abc' }}")).toBe('abc');
  });
});

describe('printing is unchanged', () => {
  it('lists and objects print as the library printed them', () => {
    const data = [1, 'a"b', null, true, 1.5, { k: [2, { deep: 'é' }] }, [], {}];
    const expected = toRuntimeValue(data).toString();
    expect(render('<{{ state.data }}>', { state: { data } })).toBe(`<${expected}>`);
    expect(render('{{ state.data ~ "" }}', { state: { data } })).toBe(expected);
    expect(render('{{ state.data | string }}', { state: { data } })).toBe(expected);
    expect(render('{{ 3 / 3 }} {{ [3 / 3] }} {{ {"a": none} }}')).toBe('1.0 [1] {"a": null}');
  });

  it('+ joins texts with numbers but not with lists', () => {
    expect(render("{{ 'a' + 'b' }}{{ 'n' + 1 }}{{ 1 + 2 }}{{ 1 + 0.5 }}")).toBe('abn131.5');
    expect(render('{{ [1] + [2] }}')).toEqual([1, 2]);
    expect(failure(() => render("{{ 'a' + [1] }}")).message).toContain('use ~ to join texts');
    expect(failure(() => render("{{ {'k': 1} + 'a' }}")).code).toBe('TEMPLATE_ERROR');
  });

  it('in and not in keep their meaning', () => {
    expect(
      render(
        "{{ 'b' in 'abc' }} {{ 2 in [1, 2] }} {{ 'k' in {'k': 1} }} {{ 'z' not in 'abc' }} {{ 1 in state.missing }}",
      ),
    ).toBe('true true true true false');
  });
});
