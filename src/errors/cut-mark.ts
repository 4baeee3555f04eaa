/**
 * The mark a cut leaves in a message (`…[+N chars]`), shared by the cutter and by redaction, which
 * redacts the start of a secret left just before one (src/util/redact-text.ts). `cutWithMark` is the
 * cut itself; src/util/cut-text.ts adds redaction around it (errors sits below util, so a message
 * printed here cuts without secrets to know).
 */

/** Matches a cut mark. */
export const CUT_MARK_PATTERN = /…\[\+\d+ chars?\]/g;
/** Text every cut mark starts with (a cheap test before the pattern). */
export const CUT_MARK_START = '…[+';

/** The mark put where `count` characters were cut off. */
export function cutMark(count: number): string {
  return `…[+${count} ${count === 1 ? 'char' : 'chars'}]`;
}

/**
 * `text` when it has at most `max` characters, else its start and the cut mark, `max` characters
 * in all (never half of a surrogate pair; at least the mark when `max` is smaller than it).
 */
export function cutWithMark(text: string, max: number): string {
  if (text.length <= max) return text;
  // The mark's length depends on the count it names, which depends on what is kept.
  let keep = Math.max(0, max - cutMark(text.length).length);
  const last = text.charCodeAt(keep - 1);
  if (keep > 0 && last >= 0xd800 && last <= 0xdbff) keep--;
  return text.slice(0, keep) + cutMark(text.length - keep);
}
