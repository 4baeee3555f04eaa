/**
 * The operators tea-edge evaluates itself: `*` (repetition), `+`, `in`, and `%` on numbers. Strings
 * and lists they would build are checked against the size cap, and charged as work, before they
 * are built; `in` charges the scan.
 */
import { AgentError } from '../core/agent-error.js';
import {
  type RuntimeValue,
  isArray,
  isInteger,
  isMapping,
  isNumber,
  isString,
  makeArray,
  makeFloat,
  makeInteger,
  makeString,
} from './jinja-runtime.js';
import type { RenderBudget } from './render-budget.js';
import { toText } from './text-writer.js';
import { itemsSize } from './value-size.js';

/**
 * `*`: numbers multiply; a string or list times an integer repeats. The size is checked and the
 * work charged before anything is built; for a list the work counts every value printing or
 * copying the result would walk (`[x] * n` walks all of `x` n times).
 */
export function multiply(left: RuntimeValue, right: RuntimeValue, budget: RenderBudget): RuntimeValue {
  if (isNumber(left) && isNumber(right)) {
    const product = left.value * right.value;
    return isInteger(left) && isInteger(right) ? makeInteger(product) : makeFloat(product);
  }
  const [sequence, times] = isInteger(right)
    ? [left, right.value]
    : isInteger(left)
      ? [right, left.value]
      : [left, NaN];
  if (Number.isInteger(times) && (isString(sequence) || isArray(sequence))) {
    const count = Math.max(times, 0);
    budget.size(sequence.value.length * count);
    if (isString(sequence)) {
      budget.work(sequence.value.length * count);
      return makeString(sequence.value.repeat(count));
    }
    const items = sequence.value as RuntimeValue[];
    if (count > 0) budget.work(itemsSize(items, budget.workLeft / count) * count);
    const repeated: RuntimeValue[] = [];
    for (let index = 0; index < count; index++) for (const item of items) repeated.push(item);
    return makeArray(repeated);
  }
  throw new AgentError('TEMPLATE_ERROR', `cannot multiply ${left.type} by ${right.type}`);
}

/**
 * `+`: numbers add; two lists concatenate (size checked and every walked value charged first,
 * as for `*`); a string joins a string, number or boolean. A list or object cannot be added to a
 * string: the library would print it whole, where `~` prints within the cap.
 */
export function add(left: RuntimeValue, right: RuntimeValue, budget: RenderBudget): RuntimeValue {
  if (isNumber(left) && isNumber(right)) {
    const sum = left.value + right.value;
    return isInteger(left) && isInteger(right) ? makeInteger(sum) : makeFloat(sum);
  }
  if (isArray(left) && isArray(right)) {
    budget.size(left.value.length + right.value.length);
    budget.work(itemsSize(left.value, budget.workLeft) + itemsSize(right.value, budget.workLeft));
    return makeArray(left.value.concat(right.value));
  }
  const isText = (value: RuntimeValue) => isString(value) || isNumber(value) || value.type === 'BooleanValue';
  if ((isString(left) || isString(right)) && isText(left) && isText(right)) {
    const text = toText(left, budget) + toText(right, budget);
    budget.size(text.length);
    return makeString(text);
  }
  const hint = isString(left) || isString(right) ? '; use ~ to join texts' : '';
  throw new AgentError('TEMPLATE_ERROR', `cannot add ${right.type} to ${left.type}${hint}`);
}

/**
 * `in` / `not in`, as the library reads them: a substring, a list item (same value), an
 * object key. A list or text is scanned, so its length is charged.
 */
export function contains(left: RuntimeValue, right: RuntimeValue, budget: RenderBudget): boolean {
  if (right.type === 'UndefinedValue') return false;
  if (isArray(right)) {
    budget.work(right.value.length);
    return right.value.some((item) => item.value === left.value);
  }
  if (isString(right) && isString(left)) {
    budget.work(right.value.length);
    return right.value.includes(left.value);
  }
  if (isMapping(right) && isString(left)) return right.value.has(left.value);
  throw new AgentError('TEMPLATE_ERROR', `cannot test whether a ${left.type} is in a ${right.type}`);
}

/** `%` on numbers as in Python (and so Jinja): the result has the sign of the divisor. */
export function remainder(left: RuntimeValue, right: RuntimeValue): RuntimeValue {
  if (!isNumber(left) || !isNumber(right))
    throw new AgentError('TEMPLATE_ERROR', `cannot apply % to ${left.type} and ${right.type}`);
  if (right.value === 0) throw new AgentError('TEMPLATE_ERROR', 'modulo by zero');
  const remainder = left.value - right.value * Math.floor(left.value / right.value);
  return isInteger(left) && isInteger(right) ? makeInteger(remainder) : makeFloat(remainder);
}
