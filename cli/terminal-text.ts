/**
 * Text from agents and models made safe for a terminal. Action names, Lua errors, model replies and
 * state are untrusted: an escape sequence could rewrite the screen or the window title, a bare
 * newline could forge a second "error" line, and a bidi override could reorder what is shown.
 *
 * - `oneLine` is for a line the CLI composes (the error line): every control character becomes a
 *   visible escape (`\n`, `\x1b`, `\u202e`), and the line is capped at MAX_LINE characters.
 * - `terminalSafe` is the last guard on everything written to stdout/stderr: line breaks and tabs
 *   stay, every other control character becomes `\uXXXX`. Inside JSON text that is a valid escape
 *   of the same character, so JSON output still parses to the same value.
 */
import { cutWithMark } from '../src/host.js';

/** The longest error line the CLI prints. */
export const MAX_LINE = 2000;

/** C0 and C1 controls, DEL, line/paragraph separators, bidi embeddings/overrides/isolates. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
/** The same without tab and line feed (a carriage return could overwrite a line: escaped). */
const CONTROL_BUT_LINES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function unicodeEscape(character: string): string {
  return `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** One visible line: controls escaped, capped at `max` characters with the cut mark redaction knows (src/errors/cut-mark.ts). */
export function oneLine(text: string, max = MAX_LINE): string {
  const escaped = text.replace(
    CONTROL,
    (character) =>
      NAMED[character] ??
      (character.charCodeAt(0) < 0x100
        ? `\\x${character.charCodeAt(0).toString(16).padStart(2, '0')}`
        : unicodeEscape(character)),
  );
  return cutWithMark(escaped, max);
}

/** Keeps line breaks and tabs; every other control character becomes `\uXXXX`. */
export function terminalSafe(text: string): string {
  return text.replace(CONTROL_BUT_LINES, unicodeEscape);
}
