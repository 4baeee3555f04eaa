/**
 * compileSafePattern: compiles an untrusted regular expression (a schema `pattern`, a
 * `patternProperties` key, a scripted-model rule) for the linear-time matcher (`LinearRegex`):
 * matching costs at most (program size × text length) steps, whatever the pattern. Vetting
 * patterns by shape for a backtracking engine cannot be made complete, so no agent-supplied
 * pattern ever reaches JavaScript's `RegExp` matcher on more than one character.
 *
 * The source is JavaScript syntax in Unicode mode (what JSON Schema and the scripted model
 * promise); it must first compile with `new RegExp(source, 'u')` (compiling runs nothing).
 *
 * Refused (`PatternProblem` with a reason): invalid syntax, back-references (`\1`, `\k<n>`),
 * lookahead and lookbehind, sources longer than `maxLength`, and patterns whose program, with
 * repetitions expanded (`a{1000}` is 1,000 steps), exceeds `MAX_PROGRAM_SIZE`.
 */
import { LinearRegex, PatternProblem, PatternStepsExceeded } from './linear-regex.js';
import { messageOf } from '../util/message-of.js';

export { PatternProblem, PatternStepsExceeded };

export interface SafePattern {
  readonly source: string;
  /** Compiled program size, for callers that cap a total over many patterns. */
  readonly size: number;
  /** True when the pattern matches somewhere in `text` (like `RegExp.prototype.test`). */
  test(text: string): boolean;
  /** The same search, counting its steps; throws PatternStepsExceeded past `maxSteps`. */
  run(text: string, maxSteps?: number): { matched: boolean; steps: number };
}

export interface SafePatternFlags {
  ignoreCase?: boolean;
  multiline?: boolean;
  dotAll?: boolean;
}

/** Longest pattern source accepted unless the caller says otherwise. */
export const DEFAULT_MAX_PATTERN_LENGTH = 4096;

/** Largest program (instructions, repetitions expanded): compiles in a few milliseconds. */
export const MAX_PROGRAM_SIZE = 5_000;

/**
 * Compiles `source`; throws PatternProblem with a reason when it is invalid or uses syntax the
 * linear-time matcher cannot run.
 * @example compileSafePattern('^(a+)+$').test('a'.repeat(300) + '!') // false, in microseconds
 */
export function compileSafePattern(
  source: string,
  flags: SafePatternFlags = {},
  maxLength = DEFAULT_MAX_PATTERN_LENGTH,
): SafePattern {
  if (source.length > maxLength) throw new PatternProblem(`pattern longer than ${maxLength} characters`);
  try {
    new RegExp(source, 'u');
  } catch (error) {
    throw new PatternProblem(`invalid regular expression: ${messageOf(error)}`);
  }
  const compiled = new LinearRegex(source, flags, MAX_PROGRAM_SIZE);
  return {
    source,
    size: compiled.size,
    test: (text) => compiled.test(text),
    run: (text, maxSteps) => compiled.run(text, maxSteps),
  };
}
