/**
 * compileSafePattern: runs an untrusted regular expression (a schema `pattern`, a
 * `patternProperties` key, a scripted-model rule) on a linear-time engine, re2js (RE2 semantics:
 * matching time grows linearly with the text, whatever the pattern). Vetting patterns by shape
 * for a backtracking engine cannot be made complete, so no agent-supplied pattern ever reaches
 * JavaScript's `RegExp` matcher.
 *
 * The source is JavaScript syntax in Unicode mode (what JSON Schema and the scripted model
 * promise). It is first checked by `new RegExp(source, 'u')` (compiling is cheap; nothing is
 * matched), then translated token by token into RE2 syntax with JavaScript's meaning kept:
 * `.` excludes the four JS line terminators, `\s` is JS's whitespace set, `\u{…}`, `\cX`, `\0`
 * become `\x{…}`, class members are written as code points, groups become non-capturing.
 *
 * Refused (a `PatternProblem` naming the construct): back-references (`\1`, `\k<n>`), lookahead
 * and lookbehind (`(?=`, `(?!`, `(?<=`, `(?<!`), Unicode properties RE2 does not know (script
 * short codes such as `\p{sc=Grek}`, most binary properties), repetition counts above 1000, and
 * sources longer than `maxLength`.
 *
 * Known difference: with the `m` flag, `^`/`$` match around `\n` only (JS also uses `\r`,
 * U+2028, U+2029).
 */
import { RE2JS } from 're2js';
import { CharSet, classEscapeSet, type CodePointRange } from './char-set.js';

export interface SafePattern {
  /** True when the pattern matches somewhere in `text` (like `RegExp.prototype.test`). */
  test(text: string): boolean;
  readonly source: string;
  /** Estimated compiled size (atoms with repetitions expanded), for callers that cap a total. */
  readonly size: number;
}

export interface SafePatternFlags {
  ignoreCase?: boolean;
  multiline?: boolean;
  dotAll?: boolean;
}

export class PatternProblem extends Error {}

/** Longest pattern source accepted unless the caller says otherwise. */
export const DEFAULT_MAX_PATTERN_LENGTH = 4096;

/**
 * Compiles `source`; throws PatternProblem with a reason when it is invalid or uses syntax the
 * linear-time engine cannot run.
 * @example compileSafePattern('^(a+)+$').test('a'.repeat(300) + '!') // false, in microseconds
 */
export function compileSafePattern(source: string, flags: SafePatternFlags = {}, maxLength = DEFAULT_MAX_PATTERN_LENGTH): SafePattern {
  if (source.length > maxLength) throw new PatternProblem(`pattern longer than ${maxLength} characters`);
  try {
    new RegExp(source, 'u');
  } catch (error) {
    throw new PatternProblem(`invalid regular expression: ${(error as Error).message}`);
  }
  const translator = new Translator(source, flags.dotAll === true);
  const translated = translator.translate();
  let compiled: RE2JS;
  try {
    let re2Flags = 0;
    if (flags.ignoreCase === true) re2Flags |= RE2JS.CASE_INSENSITIVE;
    if (flags.multiline === true) re2Flags |= RE2JS.MULTILINE;
    compiled = RE2JS.compile(translated, re2Flags);
  } catch (error) {
    throw new PatternProblem(`not supported by the linear-time regex engine: ${(error as Error)?.message ?? String(error)}`);
  }
  return { source, size: translator.estimatedSize, test: (text: string) => compiled.test(text) };
}

const MAX_CODE_POINT = 0x10ffff;
/**
 * Largest estimated program (atoms, repetitions expanded). re2js compiles about 8 µs per step
 * warm and several times that cold; 5,000 steps stay well under 100 ms.
 */
export const MAX_PROGRAM_SIZE = 5_000;
const LINE_TERMINATORS = '\\x{A}\\x{D}\\x{2028}\\x{2029}';
const SYNTAX_CHARACTERS = new Set('^$\\.*+?()[]{}|/'.split(''));
const SIMPLE_ESCAPES: Record<string, number> = { t: 9, n: 10, v: 11, f: 12, r: 13 };

// JS long General_Category names → the short names RE2 knows.
const CATEGORY_ALIASES: Record<string, string> = {
  Letter: 'L', Cased_Letter: 'LC', Uppercase_Letter: 'Lu', Lowercase_Letter: 'Ll', Titlecase_Letter: 'Lt', Modifier_Letter: 'Lm', Other_Letter: 'Lo',
  Mark: 'M', Combining_Mark: 'M', Nonspacing_Mark: 'Mn', Spacing_Mark: 'Mc', Enclosing_Mark: 'Me',
  Number: 'N', Decimal_Number: 'Nd', digit: 'Nd', Letter_Number: 'Nl', Other_Number: 'No',
  Punctuation: 'P', punct: 'P', Connector_Punctuation: 'Pc', Dash_Punctuation: 'Pd', Open_Punctuation: 'Ps', Close_Punctuation: 'Pe',
  Initial_Punctuation: 'Pi', Final_Punctuation: 'Pf', Other_Punctuation: 'Po',
  Symbol: 'S', Math_Symbol: 'Sm', Currency_Symbol: 'Sc', Modifier_Symbol: 'Sk', Other_Symbol: 'So',
  Separator: 'Z', Space_Separator: 'Zs', Line_Separator: 'Zl', Paragraph_Separator: 'Zp',
  Other: 'C', Control: 'Cc', cntrl: 'Cc', Format: 'Cf', Surrogate: 'Cs', Private_Use: 'Co', Unassigned: 'Cn',
};

class Translator {
  private position = 0;

  constructor(
    private readonly source: string,
    private readonly dotAll: boolean,
  ) {}

  // Estimated program size with repetitions expanded: RE2 copies `x{n,m}` m times, so a short
  // source like `a{1000}` repeated can compile for seconds. Tracked per group nesting level.
  private size = 0;
  private lastAtom = 0;
  private readonly outer: Array<{ size: number; lastAtom: number }> = [];

  get estimatedSize(): number {
    return this.size;
  }

  translate(): string {
    let out = '';
    while (this.position < this.source.length) {
      out += this.token();
      if (this.size > MAX_PROGRAM_SIZE) throw new PatternProblem(`pattern too large once repetitions are expanded (more than ${MAX_PROGRAM_SIZE} steps)`);
    }
    return out;
  }

  private token(): string {
    const text = this.rawToken();
    const first = text[0];
    if (first === '(') {
      this.outer.push({ size: this.size, lastAtom: this.lastAtom });
      this.size = 0;
      this.lastAtom = 0;
    } else if (first === ')') {
      const group = this.size + 1;
      const saved = this.outer.pop() ?? { size: 0, lastAtom: 0 };
      this.size = saved.size + group;
      this.lastAtom = group;
    } else if (first === '|') {
      this.lastAtom = 0;
    } else if (first === '{' || first === '*' || first === '+' || first === '?') {
      const counts = /^\{(\d+)(?:,(\d*))?\}/.exec(text);
      const copies = counts === null ? 1 : Math.max(1, Number(counts[2] === undefined || counts[2] === '' ? counts[1] : counts[2]));
      this.size += this.lastAtom * (copies - 1) + 1;
      this.lastAtom = this.lastAtom * copies + 1;
    } else if (first !== '^' && first !== '$') {
      this.size += 1;
      this.lastAtom = 1;
    }
    return text;
  }

  private rawToken(): string {
    const character = this.next();
    switch (character) {
      case '\\':
        return this.escape();
      case '.':
        return this.dotAll ? `[\\x{0}-\\x{10FFFF}]` : `[^${LINE_TERMINATORS}]`;
      case '[':
        return this.characterClass();
      case '(':
        return this.groupOpening();
      case '{': {
        // In Unicode mode a brace can only open a quantifier (checked above); RE2 reads it alike.
        const end = this.source.indexOf('}', this.position);
        const quantifier = this.source.slice(this.position - 1, end + 1);
        this.position = end + 1;
        return quantifier;
      }
      case '^': case '$': case '|': case ')': case '*': case '+': case '?':
        return character;
      default:
        return codePointText(this.literal(character));
    }
  }

  private groupOpening(): string {
    if (this.source[this.position] !== '?') return '(?:';
    const rest = this.source.slice(this.position, this.position + 3);
    if (rest.startsWith('?:')) {
      this.position += 2;
      return '(?:';
    }
    if (rest.startsWith('?=') || rest.startsWith('?!')) throw new PatternProblem('lookahead ((?= or (?!) is not supported by the linear-time regex engine');
    if (rest === '?<=' || rest === '?<!') throw new PatternProblem('lookbehind ((?<= or (?<!) is not supported by the linear-time regex engine');
    if (rest.startsWith('?<')) {
      this.position = this.source.indexOf('>', this.position) + 1;
      return '(?:';
    }
    throw new PatternProblem(`group syntax '(${rest}' is not supported`);
  }

  private escape(): string {
    const letter = this.next();
    if (letter === 'b' || letter === 'B' || letter === 'd' || letter === 'D' || letter === 'w' || letter === 'W') return `\\${letter}`;
    if (letter === 's' || letter === 'S') return classText(classEscapeSet(letter)!);
    if (letter === 'p' || letter === 'P') return this.property(letter);
    if (letter === 'k' || /[1-9]/.test(letter)) throw new PatternProblem('back-references (\\1, \\k<name>) are not supported by the linear-time regex engine');
    return codePointText(this.escapedCodePoint(letter));
  }

  /** The code point of a character escape whose letter was just read. */
  private escapedCodePoint(letter: string): number {
    const simple = SIMPLE_ESCAPES[letter];
    if (simple !== undefined) return simple;
    if (letter === '0') return 0;
    if (letter === 'c') return this.next().charCodeAt(0) % 32;
    if (letter === 'x') return this.hex(2);
    if (letter === 'u') {
      if (this.source[this.position] === '{') {
        const end = this.source.indexOf('}', this.position);
        const value = parseInt(this.source.slice(this.position + 1, end), 16);
        this.position = end + 1;
        return value;
      }
      const high = this.hex(4);
      // A `\uD83D\uDE00` pair is one code point in Unicode mode.
      if (high >= 0xd800 && high <= 0xdbff && this.source.startsWith('\\u', this.position) && /^[dD][c-fC-F][0-9a-fA-F]{2}$/.test(this.source.slice(this.position + 2, this.position + 6))) {
        this.position += 2;
        const low = this.hex(4);
        return 0x10000 + ((high - 0xd800) << 10) + (low - 0xdc00);
      }
      return high;
    }
    if (SYNTAX_CHARACTERS.has(letter) || letter === '-') return letter.charCodeAt(0);
    return this.literal(letter);
  }

  /** `\p{…}` / `\P{…}`: JS property names mapped to RE2's. */
  private property(letter: string): string {
    const end = this.source.indexOf('}', this.position);
    const body = this.source.slice(this.position + 1, end);
    this.position = end + 1;
    const [rawName, rawValue] = body.includes('=') ? body.split('=') as [string, string] : [undefined, body];
    const value = rawValue;
    if (rawName === undefined && value === 'Any') return letter === 'p' ? '[\\x{0}-\\x{10FFFF}]' : '[^\\x{0}-\\x{10FFFF}]';
    if (rawName === undefined && value === 'ASCII') return letter === 'p' ? '[\\x{0}-\\x{7F}]' : '[^\\x{0}-\\x{7F}]';
    if (rawName === undefined || rawName === 'General_Category' || rawName === 'gc') {
      const short = CATEGORY_ALIASES[value] ?? value;
      if (/^[A-Z][a-z]?$|^LC$/.test(short)) return `\\${letter}{${short}}`;
      if (rawName !== undefined) throw new PatternProblem(`Unicode property \\${letter}{${body}} is not supported`);
    }
    if ((rawName === undefined || rawName === 'Script' || rawName === 'sc') && /^[A-Za-z_]+$/.test(value)) return `\\${letter}{${value}}`;
    throw new PatternProblem(`Unicode property \\${letter}{${body}} is not supported by the linear-time regex engine`);
  }

  private characterClass(): string {
    let negated = false;
    if (this.source[this.position] === '^') {
      negated = true;
      this.position += 1;
    }
    const members: string[] = [];
    while (this.source[this.position] !== ']') {
      const low = this.classAtom();
      if (this.source[this.position] === '-' && this.source[this.position + 1] !== ']' && typeof low === 'number') {
        this.position += 1;
        const high = this.classAtom();
        members.push(typeof high === 'number' ? `${codePointText(low)}-${codePointText(high)}` : codePointText(low) + '\\x{2D}' + high);
      } else {
        members.push(typeof low === 'number' ? codePointText(low) : low);
      }
    }
    this.position += 1; // ']'
    // `[]` matches nothing and `[^]` anything in JS; RE2 reads both differently.
    if (members.length === 0) return negated ? '[\\x{0}-\\x{10FFFF}]' : '[^\\x{0}-\\x{10FFFF}]';
    return `[${negated ? '^' : ''}${members.join('')}]`;
  }

  /** One class member: a code point, or RE2 class text for class escapes and properties. */
  private classAtom(): number | string {
    const character = this.next();
    if (character !== '\\') return this.literal(character);
    const letter = this.next();
    if (letter === 'd' || letter === 'D' || letter === 'w' || letter === 'W') return `\\${letter}`;
    if (letter === 's' || letter === 'S') return rangesText(classEscapeSet(letter)!.ranges);
    if (letter === 'p' || letter === 'P') {
      const text = this.property(letter);
      return text.startsWith('[') ? unwrapClass(text) : text;
    }
    if (letter === 'b') return 8;
    return this.escapedCodePoint(letter);
  }

  /** The code point starting with `character`, consuming a low surrogate when there is one. */
  private literal(character: string): number {
    const codePoint = this.source.codePointAt(this.position - 1) ?? character.charCodeAt(0);
    if (codePoint > 0xffff) this.position += 1;
    return codePoint;
  }

  private hex(length: number): number {
    const value = parseInt(this.source.slice(this.position, this.position + length), 16);
    this.position += length;
    return value;
  }

  private next(): string {
    const character = this.source[this.position] ?? '';
    this.position += 1;
    return character;
  }
}

function codePointText(codePoint: number): string {
  return `\\x{${Math.min(codePoint, MAX_CODE_POINT).toString(16).toUpperCase()}}`;
}

function rangesText(ranges: readonly CodePointRange[]): string {
  return ranges.map(([low, high]) => (low === high ? codePointText(low) : `${codePointText(low)}-${codePointText(high)}`)).join('');
}

function classText(set: CharSet): string {
  return set.isEmpty ? '[^\\x{0}-\\x{10FFFF}]' : `[${rangesText(set.ranges)}]`;
}

/** `[\x{0}-\x{7F}]` → `\x{0}-\x{7F}`; a negated class inside a class is written as its complement. */
function unwrapClass(text: string): string {
  if (!text.startsWith('[^')) return text.slice(1, -1);
  const inner = text.slice(2, -1);
  if (inner === '\\x{0}-\\x{10FFFF}') return '';
  const match = /^\\x\{([0-9A-F]+)\}-\\x\{([0-9A-F]+)\}$/.exec(inner)!;
  return rangesText(CharSet.of([[parseInt(match[1]!, 16), parseInt(match[2]!, 16)]]).complement().ranges);
}
