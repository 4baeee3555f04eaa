/** True for a JSON-style object: not null, not an array (what a parsed JSON object is). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** True for an object made by `{}` or `Object.create(null)`: no class, no prototype of its own. */
export function hasPlainPrototype(value: object): boolean {
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
