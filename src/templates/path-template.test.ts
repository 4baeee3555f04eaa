import { describe, expect, it } from 'vitest';
import { compileTemplate } from './index.js';
import { prepareProgram } from './prepare-program.js';
import { toPathTemplate } from './path-template.js';

/** Data of every shape a path can meet, including awkward ones. */
const scope = {
  state: {
    text: 'héllo 😀',
    integer: 42,
    float: 2.5,
    negativeZero: -0,
    big: 1e21,
    notANumber: NaN,
    flag: true,
    off: false,
    nothing: null,
    list: [1, 'two', { three: 3 }, [4], null],
    nested: { a: { b: { c: 'deep' } }, 'odd key': 1, 0: 'zero' },
    empty: {},
    emptyList: [],
    when: new Date('2024-01-02T03:04:05.000Z'),
    fn: () => 'no',
    instance: new (class Box {
      inside = 1;
    })(),
    proto: JSON.parse('{"__proto__": {"x": 1}, "ok": 1}') as unknown,
    items: ['keys', 'items'],
  },
  variables: { name: 'Ada' },
  list: [1, 2],
  text: 'top',
};

const paths = [
  'state',
  'state.text',
  'state.integer',
  'state.float',
  'state.negativeZero',
  'state.big',
  'state.notANumber',
  'state.flag',
  'state.off',
  'state.nothing',
  'state.nothing.deeper',
  'state.missing',
  'state.missing.deeper',
  'state.list',
  'state.list[0]',
  'state.list[-1]',
  'state.list[9]',
  'state.list.2',
  'state.list[2].three',
  'state.list[3][0]',
  'state.list.length',
  'state.list.upper',
  "state.list['0']",
  'state.text[0]',
  'state.text[-1]',
  'state.text.length',
  'state.text.upper',
  'state.integer.real',
  'state.nested',
  'state.nested.a.b.c',
  "state.nested['odd key']",
  "state.nested['0']",
  'state.nested[0]',
  'state.nested.keys',
  'state.nested.items',
  'state.nested.constructor',
  'state.nested.__proto__',
  "state['__proto__']",
  'state.empty',
  'state.emptyList',
  'state.when',
  'state.when.year',
  'state.fn',
  'state.instance',
  'state.instance.inside',
  'state.proto',
  'state.proto.x',
  'state.items',
  'variables.name',
  'list',
  'list.length',
  'text',
  'missing_root',
  'missing_root.x',
  'true',
  'none',
];

describe('plain-path fast path', () => {
  it('applies to text with plain paths only', () => {
    expect(toPathTemplate(prepareProgram('Hi {{ state.a.b }} and {{ state.list[0] }}!'))).toBeDefined();
    expect(toPathTemplate(prepareProgram('{{ state.a }}'))).toBeDefined();
    expect(toPathTemplate(prepareProgram('{{ state.a | upper }}'))).toBeUndefined();
    expect(toPathTemplate(prepareProgram('{{ state[state.key] }}'))).toBeUndefined();
    expect(toPathTemplate(prepareProgram('{% if x %}y{% endif %}'))).toBeUndefined();
    expect(toPathTemplate(prepareProgram('{{ range }}'))).toBeUndefined();
  });

  it.each(paths)('{{ %s }} gives the same as the interpreter, lone and in text', (path) => {
    for (const source of [`{{ ${path} }}`, `<{{ ${path} }}>`, `a {{ ${path} }} b {{ state.text }}\n`]) {
      const outcome = (interpretOnly: boolean): unknown => {
        try {
          return { value: compileTemplate(source, {}, { interpretOnly }).render(scope) };
        } catch (error) {
          return { code: (error as { code?: string }).code };
        }
      };
      expect(outcome(false)).toEqual(outcome(true));
    }
  });

  it('falls back to the interpreter for a scope that is not an object', () => {
    expect(compileTemplate('{{ state }}', {}).render(undefined as unknown as Record<string, unknown>)).toBeUndefined();
  });
});
