/**
 * The size of a value counted the way printing or copying it would walk it: one per value, and a
 * list or object held several times is counted each time. `[x] * 1000000` is a million
 * references, but printing it walks a million copies of `x`; this count is what `*` and `+`
 * charge before they build.
 */
import { type RuntimeValue, isArray, isMapping } from './jinja-runtime.js';

/** Deepest nesting counted; deeper (a namespace holding itself) counts as too large. */
const MAX_SIZE_DEPTH = 200;

/**
 * Counts of lists and objects already measured. Runtime lists and objects are not changed after
 * they are made (only namespaces are, and they are never cached), so a count stays true; sharing
 * makes the second count of the same list free.
 */
const measured = new WeakMap<object, number>();

/** The walked size of `value`, or `Infinity` once it passes `limit` (counting stops there). */
export function walkedSize(value: RuntimeValue, limit: number): number {
  return measure(value, limit, 0);
}

/** The walked size of the items of a list (the list itself not counted). */
export function itemsSize(items: readonly RuntimeValue[], limit: number): number {
  let total = 0;
  for (const item of items) {
    total += measure(item, limit - total, 1);
    if (total > limit) return Infinity;
  }
  return total;
}

function measure(value: RuntimeValue, limit: number, depth: number): number {
  const array = isArray(value);
  if (!array && !isMapping(value)) return 1;
  const container = value.value as object;
  const known = measured.get(container);
  if (known !== undefined) return known > limit ? Infinity : known;
  if (depth > MAX_SIZE_DEPTH) return Infinity;
  let total = 1;
  const children = array ? (value.value as RuntimeValue[]) : (value.value as Map<string, RuntimeValue>).values();
  for (const child of children) {
    total += measure(child, limit - total, depth + 1);
    if (total > limit) return Infinity;
  }
  if (value.type !== 'NamespaceValue') measured.set(container, total);
  return total;
}
