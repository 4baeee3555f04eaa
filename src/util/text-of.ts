/** Text forms of values, for prompts, traces and messages. */

/**
 * A value's text form: a string as it is, anything else as its JSON (indented by `indent` spaces
 * when given), or its String form where it has no JSON (undefined, a function, a cycle, a BigInt).
 * @example textOf({ a: 1 }) // '{"a":1}'
 */
export function textOf(value: unknown, indent?: number): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value, null, indent) ?? String(value);
  } catch {
    return String(value);
  }
}

/** `value` when it is a string, else undefined. */
export function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
