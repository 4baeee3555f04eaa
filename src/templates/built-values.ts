/** Strings and lists made while rendering: checked against the size cap and charged as work. */
import { type RuntimeValue, isArray, isMapping, isString, makeArray, makeString } from './jinja-runtime.js';
import type { RenderBudget } from './render-budget.js';

/** A string that was made: within the size cap, and charged to the render's work. */
export function builtString(text: string, budget: RenderBudget): RuntimeValue {
  budget.size(text.length);
  budget.work(text.length);
  return makeString(text);
}

/** A list that was made (its items are shared, not copied): within the size cap, and charged. */
export function builtList(items: RuntimeValue[], budget: RenderBudget): RuntimeValue {
  budget.size(items.length);
  budget.work(items.length);
  return makeArray(items);
}

/**
 * Charges a string, list or object a library operation made (after the fact: the library gives
 * no hook before), and checks its size.
 */
export function chargeBuilt(value: RuntimeValue, budget: RenderBudget): RuntimeValue {
  const size = isString(value) || isArray(value) ? value.value.length : isMapping(value) ? value.value.size : 0;
  if (size > 0) {
    budget.size(size);
    budget.work(size);
  }
  return value;
}
