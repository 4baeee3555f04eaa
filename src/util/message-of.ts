/**
 * The text of anything thrown, for messages: an Error's message (never its stack), a thrown string
 * as it is, a number or other primitive as its String form, anything else (an object, null,
 * undefined) as `fallback`.
 * @example messageOf(new TypeError('fetch failed')) // 'fetch failed'
 */
export function messageOf(error: unknown, fallback = 'unknown error'): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'string') return error;
  if (error === null || error === undefined || typeof error === 'object' || typeof error === 'function')
    return fallback;
  return String(error);
}
