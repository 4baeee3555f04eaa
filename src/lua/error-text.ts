/**
 * Caps on the text of every error the Lua sandbox produces (runtime, syntax, conversion, budget):
 * a script controls that text (`error(("x"):rep(1e6))`, a 1 MiB table key in a conversion path),
 * and it goes into run records, traces and terminals. Long text is cut with a note saying so.
 */
import { cutText } from '../util/cut-text.js';

/**
 * Longest error message, in characters: with its location prefix and the note it stays under the
 * run record's own 4,000-character cap (src/graph/run-error.ts), so the note survives.
 */
export const MAX_ERROR_TEXT = 3000;
/** Longest path shown in a conversion error, and longest single key in it. */
const MAX_PATH_TEXT = 512;
const MAX_PATH_KEY = 48;

/** `text`, cut to `max` characters with a note of how long it was. */
export function capErrorText(text: string, max = MAX_ERROR_TEXT): string {
  if (text.length <= max) return text;
  return `${cutText(text, max)} [cut: ${text.length} characters in all]`;
}

/** Decodes no more of a Lua string than `capErrorText` would keep (a character is at most 4 bytes), then caps it. */
export function decodeErrorText(
  bytes: Uint8Array,
  decode: (bytes: Uint8Array) => string,
  max = MAX_ERROR_TEXT,
): string {
  if (bytes.length <= max * 4) return capErrorText(decode(bytes), max);
  return `${cutText(decode(bytes.subarray(0, max * 4)), max)} [cut: ${bytes.length} bytes in all]`;
}

/** `$`, `$.key`, `$[0]`: a conversion path, each key and the whole shortened (its middle elided). */
export function formatValuePath(path: readonly (string | number)[]): string {
  const parts = path.map((key) => (typeof key === 'number' ? `[${key}]` : `.${cutText(key, MAX_PATH_KEY)}`));
  let text = '$' + parts.join('');
  if (text.length > MAX_PATH_TEXT) {
    const keep = MAX_PATH_TEXT / 2;
    text = `${text.slice(0, keep)}…(${path.length} levels)…${text.slice(-keep)}`;
  }
  return text;
}
