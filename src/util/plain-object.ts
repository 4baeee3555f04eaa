/** True for a JSON-style object: not null, not an array (what a parsed JSON object is). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
