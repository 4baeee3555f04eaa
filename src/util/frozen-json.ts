/**
 * Sealed JSON: an inert JSON value (plain objects, arrays, strings, finite numbers, booleans,
 * null) that this process built, deeply froze and registered, so nobody can change it. The engine
 * seals every event it makes (fresh copies from the sanitiser); a store may then keep a sealed
 * value by reference instead of serialising it, since sharing cannot leak a change either way.
 *
 * The brand is what makes the check cheap (one property read, no walk) and strict: only
 * `sealJson` sets it (the symbol is not exported), and only on values it froze whole.
 */

/** The brand `sealJson` sets (a module-private symbol: hidden from JSON, keys and spreads). */
const SEALED: unique symbol = Symbol('sealed JSON');

/**
 * Freezes an inert JSON value in place, all the way down, and registers it as sealed; returns it.
 * Only for values this process just built as inert JSON (a sanitiser's copy): the caller vouches
 * for the shape, and nothing else may hold a reference that expects to change it.
 */
export function sealJson<T extends object>(value: T): T {
  Object.defineProperty(value, SEALED, { value: true });
  freezeDeep(value);
  return value;
}

/** True when `value` was sealed by `sealJson`: inert JSON that can never change. */
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
