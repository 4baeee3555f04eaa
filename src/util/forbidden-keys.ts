/**
 * The keys never read from or written into objects built from untrusted data (parsed JSON, model
 * output, state updates, events): each could reach or replace a prototype. The one list, so every
 * guard agrees on it.
 */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** True for `__proto__`, `constructor` and `prototype` (most keys are passed by their length alone). */
export function isForbiddenKey(key: string): boolean {
  return (key.length === 9 || key.length === 11) && FORBIDDEN_KEYS.has(key);
}
