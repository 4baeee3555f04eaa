/**
 * Sealed JSON: an inert JSON value (plain objects, arrays, strings, finite numbers, booleans,
 * null) that this process built, deeply froze and branded, so nobody can change it. The engine
 * freezes every event it makes (fresh copies from the sanitiser) and seals each batch it appends;
 * a store may then keep a sealed value by reference instead of serialising it, since sharing
 * cannot leak a change either way.
 *
 * The brand is what makes the check cheap (one property read, no walk) and strict: only this
 * module sets it (the symbol is not exported), on values frozen whole. Branding costs more than
 * freezing, so a list of values the engine froze one by one is branded once, as a list.
 */

/** The brand (a module-private symbol: hidden from JSON, keys and spreads). */
const SEALED: unique symbol = Symbol('sealed JSON');

/**
 * Freezes an inert JSON value in place, all the way down; returns it. Only for values this
 * process just built as inert JSON (a sanitiser's copy): the caller vouches for the shape, and
 * nothing else may hold a reference that expects to change it.
 */
export function freezeJson<T extends object>(value: T): T {
  freezeDeep(value);
  return value;
}

/**
 * Seals a list whose items were each frozen by `freezeJson` (the caller vouches for that): the list
 * is frozen and branded, its items are not walked again.
 */
export function sealFrozenList<T extends object>(items: T[]): readonly T[] {
  Object.defineProperty(items, SEALED, { value: true });
  return Object.freeze(items);
}

/** True when `value` is a list sealed by `sealFrozenList`: inert JSON that can never change, items and all. */
export function isSealedJson(value: unknown): boolean {
  return typeof value === 'object' && value !== null && (value as { [SEALED]?: true })[SEALED] === true;
}

function freezeDeep(value: object): void {
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const item: unknown = value[index];
      if (typeof item === 'object' && item !== null) freezeDeep(item);
    }
  } else {
    const record = value as Record<string, unknown>;
    // A sanitiser's copies are plain objects: no inherited enumerable keys to skip.
    for (const key in record) {
      const field = record[key];
      if (typeof field === 'object' && field !== null) freezeDeep(field);
    }
  }
  Object.freeze(value);
}
