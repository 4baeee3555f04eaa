/**
 * The parser behind LinearRegex: JavaScript regular-expression syntax (Unicode mode) into a tree
 * of single-character tests, assertions, sequences, alternations and repetitions. Each
 * single-character atom keeps its own source, which JavaScript's RegExp then decides on one
 * code point at a time (`charTest`). Back-references and lookaround are refused.
 */

/** A pattern that is invalid or uses syntax the linear-time matcher cannot run. */
export class PatternProblem extends Error {}

export type Tree =
  | { kind: 'char'; test: CharTest }
  | { kind: 'assert'; which: '^' | '$' | 'b' | 'B' }
  | { kind: 'seq'; items: Tree[] }
  | { kind: 'alt'; options: Tree[] }
  | { kind: 'repeat'; body: Tree; min: number; max: number };

export type CharTest = (codePoint: number, text: string, index: number, width: number) => boolean;

export interface ParserFlags {
  ignoreCase?: boolean;
  dotAll?: boolean;
}

/**
 * Parses JavaScript Unicode-mode syntax (the source has already compiled with `new RegExp(s, 'u')`,
 * so only structure is read here). Single-character atoms keep their source text for `charTest`.
 */
export class Parser {
  private position = 0;
  private readonly regexFlags: string;

  constructor(
    private readonly source: string,
    flags: ParserFlags,
  ) {
    this.regexFlags = `u${flags.ignoreCase === true ? 'i' : ''}${flags.dotAll === true ? 's' : ''}`;
  }

  parse(): Tree {
    const tree = this.alternation();
    if (this.position < this.source.length)
      throw new PatternProblem(`unexpected '${this.source[this.position]}' at ${this.position}`);
    return tree;
  }

  private alternation(): Tree {
    const options = [this.sequence()];
    while (this.source[this.position] === '|') {
      this.position += 1;
      options.push(this.sequence());
    }
    return options.length === 1 ? options[0]! : { kind: 'alt', options };
  }

  private sequence(): Tree {
    const items: Tree[] = [];
    while (
      this.position < this.source.length &&
      this.source[this.position] !== '|' &&
      this.source[this.position] !== ')'
    ) {
      items.push(this.quantified(this.atom()));
    }
    return items.length === 1 ? items[0]! : { kind: 'seq', items };
  }

  private quantified(atom: Tree): Tree {
    const character = this.source[this.position];
    let bounds: [number, number] | undefined;
    if (character === '*') bounds = [0, Infinity];
    else if (character === '+') bounds = [1, Infinity];
    else if (character === '?') bounds = [0, 1];
    if (bounds !== undefined) {
      this.position += 1;
    } else if (character === '{') {
      const match = /^\{(\d+)(?:(,)(\d*))?\}/.exec(this.source.slice(this.position, this.position + 40));
      if (match === null) return atom;
      const min = Number(match[1]);
      const max = match[2] === undefined ? min : match[3] === '' ? Infinity : Number(match[3]);
      bounds = [min, max];
      this.position += match[0].length;
    } else {
      return atom;
    }
    if (this.source[this.position] === '?') this.position += 1; // lazy: same language
    if (atom.kind === 'assert') return bounds[0] === 0 ? { kind: 'seq', items: [] } : atom;
    return { kind: 'repeat', body: atom, min: bounds[0], max: bounds[1] };
  }

  private atom(): Tree {
    const start = this.position;
    const character = this.source[this.position]!;
    this.position += 1;
    switch (character) {
      case '^':
      case '$':
        return { kind: 'assert', which: character };
      case '(':
        return this.group();
      case '[':
        this.skipClass();
        return this.char(start);
      case '\\':
        return this.escape(start);
      default:
        if (this.source.codePointAt(start)! > 0xffff) this.position += 1;
        return this.char(start);
    }
  }

  private group(): Tree {
    if (this.source.startsWith('?=', this.position) || this.source.startsWith('?!', this.position)) {
      throw new PatternProblem('lookahead ((?= or (?!) is not supported by the linear-time regex engine');
    }
    if (this.source.startsWith('?<=', this.position) || this.source.startsWith('?<!', this.position)) {
      throw new PatternProblem('lookbehind ((?<= or (?<!) is not supported by the linear-time regex engine');
    }
    if (this.source.startsWith('?:', this.position)) this.position += 2;
    else if (this.source.startsWith('?<', this.position)) this.position = this.source.indexOf('>', this.position) + 1;
    else if (this.source[this.position] === '?')
      throw new PatternProblem(
        `group syntax '(${this.source.slice(this.position, this.position + 3)}' is not supported`,
      );
    const body = this.alternation();
    this.position += 1; // ')'
    return body;
  }

  private escape(start: number): Tree {
    const letter = this.source[this.position]!;
    this.position += 1;
    if (letter === 'b' || letter === 'B') return { kind: 'assert', which: letter };
    if (letter === 'k' || (letter >= '1' && letter <= '9')) {
      throw new PatternProblem('back-references (\\1, \\k<name>) are not supported by the linear-time regex engine');
    }
    if (letter === 'p' || letter === 'P' || (letter === 'u' && this.source[this.position] === '{')) {
      this.position = this.source.indexOf('}', this.position) + 1;
    } else if (letter === 'u') {
      this.position += 4;
      // `\uD83D\uDE00` is one code point in Unicode mode: keep the pair as one atom.
      if (
        /^\\u[dD][c-fC-F][0-9a-fA-F]{2}/.test(this.source.slice(this.position, this.position + 6)) &&
        /^[dD][89abAB]/.test(this.source.slice(start + 2, start + 4))
      )
        this.position += 6;
    } else if (letter === 'x') {
      this.position += 2;
    } else if (letter === 'c') {
      this.position += 1;
    } else if (this.source.codePointAt(this.position - 1)! > 0xffff) {
      this.position += 1;
    }
    return this.char(start);
  }

  /** Moves past a character class (no nesting in Unicode mode). */
  private skipClass(): void {
    while (this.position < this.source.length && this.source[this.position] !== ']') {
      this.position += this.source[this.position] === '\\' ? 2 : 1;
    }
    this.position += 1;
  }

  private char(start: number): Tree {
    return { kind: 'char', test: charTest(this.source.slice(start, this.position), this.regexFlags) };
  }
}

/** A test for one code point, decided by JavaScript's own RegExp on that code point; cached. */
function charTest(atom: string, flags: string): CharTest {
  if (atom.length === 1 && !flags.includes('i') && /[^.\\[\]()|*+?{}^$]/.test(atom)) {
    const wanted = atom.charCodeAt(0);
    return (codePoint) => codePoint === wanted;
  }
  const single = new RegExp(`^(?:${atom})$`, flags);
  const ascii = new Uint8Array(128); // 0 unknown, 1 no, 2 yes
  const other = new Map<number, boolean>();
  return (codePoint, text, index, width) => {
    if (codePoint < 128) {
      const known = ascii[codePoint]!;
      if (known !== 0) return known === 2;
      const result = single.test(String.fromCharCode(codePoint));
      ascii[codePoint] = result ? 2 : 1;
      return result;
    }
    const known = other.get(codePoint);
    if (known !== undefined) return known;
    const result = single.test(text.slice(index, index + width));
    if (other.size < 4096) other.set(codePoint, result);
    return result;
  };
}
