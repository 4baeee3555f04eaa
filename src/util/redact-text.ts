/**
 * Redaction of text, the rule of every sanitiser (src/events/copy-context.ts) and of the cut helper
 * (cut-text.ts): each secret and every `Bearer`/`Basic` credential becomes `[REDACTED]`, and so does
 * the start of a secret (or a credential) left just before a cut mark.
 */
import { CUT_MARK_PATTERN, CUT_MARK_START } from '../errors/cut-mark.js';

export const REDACTED = '[REDACTED]';
const BEARER_PATTERN = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/g;
/** The shortest text BEARER_PATTERN can match (`Basic` + one space + 8 characters). */
const MIN_CREDENTIAL_LENGTH = 14;

/**
 * `text` with every one of `secrets` (already filtered and sorted longest first) and every
 * `Bearer`/`Basic` credential replaced by `[REDACTED]`.
 */
export function redactText(text: string, secrets: readonly string[]): string {
  let result = text;
  for (const secret of secrets) if (result.includes(secret)) result = result.split(secret).join(REDACTED);
  // One scan for the letter both words start with (absent from ids, timestamps, most text) first.
  if (
    result.length >= MIN_CREDENTIAL_LENGTH &&
    result.includes('B') &&
    (result.includes('Bearer') || result.includes('Basic'))
  ) {
    result = result.replace(BEARER_PATTERN, `$1 ${REDACTED}`);
  }
  if (result.includes(CUT_MARK_START)) result = redactBeforeCuts(result, secrets);
  return result;
}

/** A `Bearer`/`Basic` credential of any length ending the text (a cut may leave fewer than 8 characters). */
const CREDENTIAL_END = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]*$/;

/**
 * The text with the start of any secret (or its JSON-escaped form, as in a quoted value) that ends
 * just before a cut mark (src/util/cut-text.ts) redacted: a cut must not leave part of a key.
 */
function redactBeforeCuts(text: string, secrets: readonly string[]): string {
  const forms =
    secrets.length === 0
      ? secrets
      : [...new Set(secrets.flatMap((secret) => [secret, JSON.stringify(secret).slice(1, -1)]))];
  const longest = forms.reduce((length, form) => Math.max(length, form.length), 0);
  let result = '';
  let from = 0;
  for (const match of text.matchAll(CUT_MARK_PATTERN)) {
    result += withoutSecretStart(text.slice(from, match.index), forms, longest) + match[0];
    from = match.index + match[0].length;
  }
  return result + text.slice(from);
}

function withoutSecretStart(segment: string, forms: readonly string[], longest: number): string {
  for (let start = Math.max(0, segment.length - longest + 1); start < segment.length; start++) {
    const ending = segment.slice(start);
    if (forms.some((form) => form.length > ending.length && form.startsWith(ending)))
      return segment.slice(0, start) + REDACTED;
  }
  return segment.replace(CREDENTIAL_END, `$1 ${REDACTED}`);
}
