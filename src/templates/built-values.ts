/** Strings and lists made while rendering: checked against the size cap and charged as work. */
import { type RuntimeValue, makeArray, makeString } from './jinja-runtime.js';
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

/** Charges a string or list a library operation made (after the fact: the library gives no hook before). */
export function chargeBuilt(value: RuntimeValue, budget: RenderBudget): RuntimeValue {
  if (value.type === 'StringValue' || value.type === 'ArrayValue' || value.type === 'TupleValue') {
    const size = (value.value as string | RuntimeValue[]).length;
    budget.size(size);
    budget.work(size);
  }
  return value;
}
