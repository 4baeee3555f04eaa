/**
 * canonicalKey: one string per JSON value such that two values are equal in the JSON Schema
 * sense (`const`, `enum`, `uniqueItems`) exactly when their keys are equal: object keys sorted,
 * each scalar tagged with its type, numbers in JavaScript's shortest form (so `1` and `1.0`
 * agree). Equality checks become set look-ups: `enum` and `uniqueItems` cost one key per value
 * instead of a comparison per pair.
 *
 * @example canonicalKey({b: [1, 'x'], a: null}) === canonicalKey({a: null, b: [1, 'x']})
 */
export function canonicalKey(value: unknown): string {
  if (value === null || value === undefined) return 'n';
  switch (typeof value) {
    case 'boolean':
      return value ? 't' : 'f';
    case 'number':
      return `#${Object.is(value, -0) ? 0 : value}`;
    case 'string':
      return JSON.stringify(value);
    case 'object':
      if (Array.isArray(value)) return `[${value.map(canonicalKey).join(',')}]`;
      return `{${Object.keys(value as object)
        .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
        .sort()
        .map((key) => `${JSON.stringify(key)}:${canonicalKey((value as Record<string, unknown>)[key])}`)
        .join(',')}}`;
    default:
      return `?${String(value)}`;
  }
}
