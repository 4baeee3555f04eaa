/**
 * Jinja tests that take an argument: `x is divisibleby(3)`, `x is divisibleby 3`, `x is sameas none`,
 * `x is eq 1`, `x is lt(10)`, `x is in [1, 2]`. The library's parser knows only tests without
 * arguments, so prepare-program.ts lifts the argument out before parsing (test-arguments.ts) and the
 * interpreter evaluates it here. Semantics are Python's, as in TEA's Jinja2; a comparison Python
 * refuses (a text with a number) is a TEMPLATE_ERROR.
 */
import { AgentError } from '../core/agent-error.js';
import {
  type RuntimeValue,
  isArray,
  isBoolean,
  isMapping,
  isNull,
  isNumber,
  isString,
  isUndefined,
} from './jinja-runtime.js';
import type { RenderBudget } from './render-budget.js';
import { contains } from './template-operators.js';

export type ArgumentTest = (operand: RuntimeValue, argument: RuntimeValue, budget: RenderBudget) => boolean;

/** A missing value is TEA's None. */
const isNone = (value: RuntimeValue) => isNull(value) || isUndefined(value);

/** A number for arithmetic and ordering: Python treats True and False as 1 and 0. */
function numeric(value: RuntimeValue): number | undefined {
  if (isNumber(value)) return value.value;
  if (isBoolean(value)) return value.value ? 1 : 0;
  return undefined;
}

/** Python's `==` on data: numbers by value (1 == 1.0 == True), lists and mappings item by item. */
export function pythonEquals(left: RuntimeValue, right: RuntimeValue, budget: RenderBudget): boolean {
  budget.step();
  if (isNone(left) || isNone(right)) return isNone(left) && isNone(right);
  const leftNumber = numeric(left);
  const rightNumber = numeric(right);
  if (leftNumber !== undefined || rightNumber !== undefined) return leftNumber === rightNumber;
  if (isString(left) || isString(right)) {
    if (!isString(left) || !isString(right)) return false;
    budget.work(Math.min(left.value.length, right.value.length));
    return left.value === right.value;
  }
  if (isArray(left) && isArray(right)) {
    return (
      left.value.length === right.value.length &&
      left.value.every((item, index) => pythonEquals(item, right.value[index]!, budget))
    );
  }
  if (isMapping(left) && isMapping(right)) {
    if (left.value.size !== right.value.size) return false;
    for (const [key, item] of left.value) {
      const other = right.value.get(key);
      if (other === undefined || !pythonEquals(item, other, budget)) return false;
    }
    return true;
  }
  return left === right;
}

/** Python's ordering: numbers with numbers, texts with texts; anything else is refused. */
function compare(operand: RuntimeValue, argument: RuntimeValue, test: string): number {
  const left = numeric(operand);
  const right = numeric(argument);
  if (left !== undefined && right !== undefined) return left - right;
  if (isString(operand) && isString(argument))
    return operand.value < argument.value ? -1 : operand.value > argument.value ? 1 : 0;
  throw new AgentError('TEMPLATE_ERROR', `test '${test}': cannot order a ${operand.type} against a ${argument.type}`);
}

/**
 * Python's `is`: the same object. None, True and False are single objects; a number or text is
 * the same when equal and of the same type (as Python's small-int and interned-string caches make
 * them in practice); a list or mapping only when it is the very same value.
 */
function sameAs(operand: RuntimeValue, argument: RuntimeValue): boolean {
  if (isNone(operand) || isNone(argument)) return isNone(operand) && isNone(argument);
  if (operand.type !== argument.type) return false;
  if (isArray(operand) || isMapping(operand)) return operand.value === argument.value;
  return operand.value === argument.value;
}

const divisibleBy: ArgumentTest = (operand, argument) => {
  const value = numeric(operand);
  const divisor = numeric(argument);
  if (value === undefined || divisor === undefined) {
    throw new AgentError(
      'TEMPLATE_ERROR',
      `test 'divisibleby' takes numbers, got a ${operand.type} and a ${argument.type}`,
    );
  }
  if (divisor === 0) throw new AgentError('TEMPLATE_ERROR', "test 'divisibleby': division by zero");
  return value % divisor === 0;
};

const equal: ArgumentTest = (operand, argument, budget) => pythonEquals(operand, argument, budget);
const notEqual: ArgumentTest = (operand, argument, budget) => !pythonEquals(operand, argument, budget);
const ordered =
  (test: string, holds: (order: number) => boolean): ArgumentTest =>
  (operand, argument) =>
    holds(compare(operand, argument, test));

/** The tests that take one argument, by every name Jinja gives them. A constant table. */
export const ARGUMENT_TESTS: ReadonlyMap<string, ArgumentTest> = new Map<string, ArgumentTest>([
  ['divisibleby', divisibleBy],
  ['sameas', (operand, argument) => sameAs(operand, argument)],
  ['eq', equal],
  ['equalto', equal],
  ['ne', notEqual],
  ['lt', ordered('lt', (order) => order < 0)],
  ['lessthan', ordered('lessthan', (order) => order < 0)],
  ['le', ordered('le', (order) => order <= 0)],
  ['gt', ordered('gt', (order) => order > 0)],
  ['greaterthan', ordered('greaterthan', (order) => order > 0)],
  ['ge', ordered('ge', (order) => order >= 0)],
  ['in', (operand, argument, budget) => contains(operand, argument, budget)],
]);
