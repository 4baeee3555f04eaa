/**
 * Truthiness of `if:`/`when:` results (docs/spec.md#2-templates): the native value's truthiness, Python-like (empty
 * lists and objects are false), where the strings "", "false", "no", "none" and "0" (any case,
 * trimmed) are false too, as in TEA's goto conditions.
 */

const FALSY_WORDS: ReadonlySet<string> = new Set(['', 'false', 'no', 'none', '0']);

/**
 * @example
 * isTruthy('No'); // false
 * isTruthy([]); // false
 * isTruthy({ a: 1 }); // true
 */
export function isTruthy(value: unknown): boolean {
  if (value === null || value === undefined) return false;
  switch (typeof value) {
    case 'boolean':
      return value;
    case 'number':
      return value !== 0 && !Number.isNaN(value);
    case 'bigint':
      return value !== 0n;
    case 'string':
      return !FALSY_WORDS.has(value.trim().toLowerCase());
    case 'object':
      if (Array.isArray(value)) return value.length > 0;
      return Object.keys(value).length > 0;
    default:
      return true;
  }
}
