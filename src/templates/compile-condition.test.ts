import { describe, expect, it } from 'vitest';
import { AgentError } from '../core/agent-error.js';
import { compileCondition, isTruthy } from './index.js';

const where = { node: 'evaluate', field: 'goto[0].if' };
const scope = {
  state: { score: 0.9, verdict: 'No', tries: 2, done: true, empty: [], flags: { a: 1 }, status: 'ok' },
  variables: { threshold: 0.8 },
};

describe('isTruthy', () => {
  it.each([
    [true, true],
    [false, false],
    [null, false],
    [undefined, false],
    [0, false],
    [-0, false],
    [NaN, false],
    [1, true],
    [-2.5, true],
    ['', false],
    ['   ', false],
    ['false', false],
    ['False', false],
    [' FALSE ', false],
    ['no', false],
    ['No', false],
    ['none', false],
    ['None', false],
    ['0', false],
    [' 0 ', false],
    ['yes', true],
    ['true', true],
    ['0.0', true],
    ['null', true],
    ['nope', true],
    [[], false],
    [[0], true],
    [{}, false],
    [{ a: 0 }, true],
  ])('isTruthy(%j) is %s', (value, expected) => {
    expect(isTruthy(value)).toBe(expected);
  });
});

describe('compileCondition', () => {
  it.each([
    ['state.score > 0.8', true, true],
    ['state.score > variables.threshold and state.tries < 3', true, true],
    ['state.tries >= 3', false, false],
    ['{{ state.verdict }}', 'No', false],
    ['{{ state.status }}', 'ok', true],
    ['{{ state.score > 0.95 }}', false, false],
    ['state.empty', [], false],
    ['state.flags', { a: 1 }, true],
    ['state.missing', undefined, false],
    ["'ok' in state.status", true, true],
    ['not state.done', false, false],
    ['{% if state.done %}yes{% else %}no{% endif %}', 'yes', true],
    ['{% if not state.done %}yes{% else %}no{% endif %}', 'no', false],
    ['done', true, true],
    ['!done', false, false],
    ['!missing', true, true],
    ['True', true, true],
    ['none', null, false],
  ])('%s', (source, value, truthy) => {
    expect(compileCondition(source, where).evaluate(scope)).toEqual({ value, truthy });
  });

  it('accepts YAML booleans and numbers as constants', () => {
    expect(compileCondition(true, where).evaluate(scope)).toEqual({ value: true, truthy: true });
    expect(compileCondition(0, where).evaluate(scope)).toEqual({ value: 0, truthy: false });
    expect(compileCondition(false, where).source).toBe('false');
  });

  it('keeps the source as written', () => {
    expect(compileCondition('state.score > 0.8', where).source).toBe('state.score > 0.8');
  });

  it.each([[''], ['   '], [['a']], [{ a: 1 }], ['state.score >'], ['state.x | nofilter']])(
    'rejects %j at compile time',
    (source) => {
      try {
        compileCondition(source, where);
        expect.unreachable();
      } catch (error) {
        expect(AgentError.isInstance(error)).toBe(true);
        expect((error as AgentError).code).toBe('TEMPLATE_ERROR');
        expect((error as AgentError).location).toMatchObject(where);
      }
    },
  );

  it('a failing condition is a TEMPLATE_ERROR naming the expression', () => {
    const condition = compileCondition('state.score > state.verdict', where);
    try {
      condition.evaluate(scope);
      expect.unreachable();
    } catch (error) {
      expect((error as AgentError).code).toBe('TEMPLATE_ERROR');
      expect((error as AgentError).details.expression).toBe('{{ state.score > state.verdict }}');
    }
  });
});
