/**
 * The mark a cut leaves in a message (`…[+N chars]`, src/util/cut-text.ts), shared by the cutter
 * and by redaction, which redacts the start of a secret left just before one.
 */

/** Matches a cut mark. */
export const CUT_MARK_PATTERN = /…\[\+\d+ chars?\]/g;
/** Text every cut mark starts with (a cheap test before the pattern). */
export const CUT_MARK_START = '…[+';

/** The mark put where `count` characters were cut off. */
export function cutMark(count: number): string {
  return `…[+${count} ${count === 1 ? 'char' : 'chars'}]`;
}
