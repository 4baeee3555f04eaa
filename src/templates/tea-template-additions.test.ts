/** TEA template features from issue 13: `now()`, the `sha256` filter, tests that take an argument. */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AgentError } from '../core/agent-error.js';
import { compileTemplate } from './compile-template.js';
import { pythonUtcIso } from './python-time.js';
import { TEMPLATE_CLOCK, type TemplateScope } from './types.js';

const render = (source: string, scope: TemplateScope = {}) =>
  compileTemplate(source, { node: 'n', field: 'with.x' }, { interpretOnly: true }).render(scope);

function templateError(run: () => unknown): AgentError {
  try {
    run();
  } catch (error) {
    if (AgentError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a template error');
}

describe('now()', () => {
  it("prints the run's clock as Python's utcnow().isoformat() + 'Z'", () => {
    const clock = () => Date.UTC(2026, 10, 23, 18, 59, 19, 123);
    expect(render('{{ now() }}', { [TEMPLATE_CLOCK]: clock })).toBe('2026-11-23T18:59:19.123000Z');
    expect(render('at {{ now() }}', { [TEMPLATE_CLOCK]: () => Date.UTC(2026, 0, 2, 3, 4, 5, 0) })).toBe(
      'at 2026-01-02T03:04:05Z',
    );
  });

  it('reads the clock at each render, and Date.now without one', () => {
    let time = Date.UTC(2026, 0, 1, 0, 0, 0, 1);
    const template = compileTemplate('{{ now() }}', {});
    const scope = { [TEMPLATE_CLOCK]: () => time };
    expect(template.render(scope)).toBe('2026-01-01T00:00:00.001000Z');
    time += 1000;
    expect(template.render(scope)).toBe('2026-01-01T00:00:01.001000Z');
    const before = Date.now();
    const printed = template.render({}) as string;
    expect(Date.parse(printed)).toBeGreaterThanOrEqual(before - (before % 1000));
  });

  it('takes no arguments', () => {
    expect(templateError(() => render('{{ now(1) }}')).code).toBe('TEMPLATE_ERROR');
    expect(pythonUtcIso(0)).toBe('1970-01-01T00:00:00Z');
  });
});

describe('sha256 filter', () => {
  const hex = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

  it('hashes a text as TEA does (hex of the UTF-8 bytes)', () => {
    expect(render('{{ state.content | sha256 }}', { state: { content: 'abc' } })).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
    expect(render('key-{{ state.t | sha256 }}', { state: { t: 'héllo ☕' } })).toBe(`key-${hex('héllo ☕')}`);
  });

  it('hashes other values by the text they print as', () => {
    expect(render('{{ state.n | sha256 }}', { state: { n: 42 } })).toBe(hex('42'));
    const printed = String(render('{{ state.list }}!', { state: { list: [1, 'a'] } })).slice(0, -1);
    expect(render('{{ state.list | sha256 }}', { state: { list: [1, 'a'] } })).toBe(hex(printed));
  });
});

describe('tests with an argument', () => {
  const state = { n: 9, zero: 0, name: 'ada', items: [1, 2, 3], none: null };
  const check = (expression: string) => render(`{{ ${expression} }}`, { state });

  it('divisibleby, in both call and bare forms, negated and combined', () => {
    expect(check('state.n is divisibleby(3)')).toBe(true);
    expect(check('state.n is divisibleby 3')).toBe(true);
    expect(check('state.n is divisibleby(2)')).toBe(false);
    expect(check('state.n is not divisibleby(2)')).toBe(true);
    expect(check('state.n is divisibleby 3 and state.n is divisibleby(9)')).toBe(true);
    expect(check('state.n is divisibleby state.items[2]')).toBe(true);
    expect(check('state.n is divisibleby(state.items | length)')).toBe(true);
    expect(render('{% for i in range(1, 7) %}{% if i is divisibleby 3 %}{{ i }}{% endif %}{% endfor %}')).toBe('36');
  });

  it('sameas, eq/ne, ordering and in', () => {
    expect(check('state.none is sameas none')).toBe(true);
    expect(check('state.missing is sameas none')).toBe(true);
    expect(check('state.zero is sameas false')).toBe(false);
    expect(check('state.name is eq "ada"')).toBe(true);
    expect(check('state.name is equalto("bob")')).toBe(false);
    expect(check('state.items is eq [1, 2, 3]')).toBe(true);
    expect(check('state.n is ne 9')).toBe(false);
    expect(check('state.n is lt 10 and state.n is ge(9) and state.n is gt 8 and state.n is le 9')).toBe(true);
    expect(check('state.name is lessthan "b"')).toBe(true);
    expect(check('2 is in state.items')).toBe(true);
    expect(check('"z" is in state.name')).toBe(false);
  });

  it('refuses a missing argument at load and bad operands at render', () => {
    expect(templateError(() => compileTemplate('{{ state.n is divisibleby }}', {})).message).toContain(
      "test 'divisibleby' needs an argument",
    );
    expect(templateError(() => check('state.n is divisibleby 0')).message).toContain('division by zero');
    expect(templateError(() => check('state.name is lt 3')).message).toContain(
      'cannot order a StringValue against a IntegerValue',
    );
    expect(templateError(() => compileTemplate('{{ state.n is divisibleby(3 }}', {})).code).toBe('TEMPLATE_ERROR');
  });

  it('leaves tests without arguments as they were', () => {
    expect(check('state.n is odd and state.missing is not defined and state.name is string')).toBe(true);
    expect(check('state.n is defined')).toBe(true);
  });
});

describe('now() and env in a run', () => {
  it("reads the run's clock (RunOptions.now) and only the env the host passed", async () => {
    const { loadAgent, runAgent } = await import('../index.js');
    const agent = loadAgent(
      `name: clock
nodes:
  - name: stamp
    run: {type: expression, value: "{{ {'at': now(), 'home': env.HOME is none, 'given': env.GIVEN} }}", output_key: seen}
`,
      { file: 'clock.yaml' },
    );
    const run = runAgent(agent, {}, { now: () => Date.UTC(2030, 4, 6, 7, 8, 9, 250), env: { GIVEN: 'yes' } });
    for await (const _event of run) void _event;
    const result = await run.result;
    expect(result.state.seen).toEqual({ at: '2030-05-06T07:08:09.250000Z', home: true, given: 'yes' });
  });
});

describe('a goto if: that fails to evaluate', () => {
  it('fails the run with TEMPLATE_ERROR naming the node and rule (not false, as TEA would take it)', async () => {
    const { loadAgent, runAgent } = await import('../index.js');
    const agent = loadAgent(
      `name: routing
nodes:
  - name: decide
    run: {type: expression, value: "{{ none }}", output_key: result}
    goto:
      - if: "state.result.score > 0.5"
        to: good
      - to: other
  - name: good
  - name: other
`,
      { file: 'routing.yaml' },
    );
    const run = runAgent(agent, {});
    for await (const _event of run) void _event;
    const result = await run.result;
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('TEMPLATE_ERROR');
    expect(result.error?.node).toBe('decide');
    expect(result.error?.field).toBe('goto.0.if');
  });

  it('a test missing its argument in a goto if: is refused at load', async () => {
    const { loadAgent } = await import('../index.js');
    expect(() =>
      loadAgent('nodes:\n  - name: a\n    goto:\n      - if: "state.n is divisibleby"\n        to: __end__\n', {
        file: 'a.yaml',
      }),
    ).toThrow(/needs an argument/);
  });
});
