/**
 * The one way a message quotes a value it may have to shorten (a refused path, an expression, a
 * server's error text, a tool's result): `cutText` keeps the first `max` characters and marks the
 * cut with CUT_MARK (`…[+N chars]`); `quoteText` does the same inside JSON quotes.
 *
 * Redaction (src/events/copy-context.ts `redactText`, the rule of every sanitiser) replaces whole
 * secrets; a cut can leave the start of one just before it, and whoever wrote the text before the
 * secret chooses how much. So the mark is what redaction looks for: whatever ends just before a
 * cut mark and is the start of a secret (or of a `Bearer`/`Basic` credential) is redacted too.
 * Where the secrets are known at the cut (`secrets`), the text is redacted before it is cut as
 * well. A mark anyone writes by hand only makes redaction stricter around it.
 *
 * @example
 * throw new AgentError('INVALID_PARAMS', `path ${quoteText(path, 80)} is refused`);
 * // path "/files/ab…[+112 chars]" is refused
 */
import { redactText } from './redact-text.js';
import { cutWithMark } from '../errors/cut-mark.js';

export { CUT_MARK_PATTERN, cutMark } from '../errors/cut-mark.js';

/**
 * `text` when it has at most `max` characters, else its start and the cut mark, `max` characters
 * in all (never half of a surrogate pair; at least the mark when `max` is smaller than it). With
 * `secrets` (filtered, longest first), redacted before it is cut.
 */
export function cutText(text: string, max: number, secrets?: readonly string[]): string {
  const clean = secrets === undefined ? text : redactText(text, secrets);
  if (clean.length <= max) return clean;
  const cut = cutWithMark(clean, max);
  // Redacted again: the start of a secret the cut left before the mark goes too.
  return secrets === undefined ? cut : redactText(cut, secrets);
}

/** `cutText` inside JSON quotes, for a value that may hold quotes or control characters. */
export function quoteText(text: string, max: number, secrets?: readonly string[]): string {
  return JSON.stringify(cutText(text, max, secrets));
}
