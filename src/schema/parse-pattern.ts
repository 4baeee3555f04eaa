/**
 * parsePattern: a small parser for JavaScript regular expressions in Unicode mode (the dialect
 * @cfworker/json-schema uses for `pattern`: `new RegExp(pattern, 'u')`). It builds just enough
 * structure for `vetPattern` to reason about backtracking: character sets, sequences,
 * alternations, groups, repetitions, assertions and back-references. The source must already
 * have compiled with the `u` flag, so the parser can trust the syntax.
 */
import { CharSet, classEscapeSet, dotSet } from './char-set.js';

export type PatternNode =
  | { kind: 'chars'; set: CharSet }
  | { kind: 'assertion' }
  | { kind: 'lookaround'; body: PatternNode }
  | { kind: 'backreference' }
  | { kind: 'sequence'; items: PatternNode[] }
  | { kind: 'alternation'; alternatives: PatternNode[] }
  | { kind: 'group'; body: PatternNode }
  | { kind: 'repeat'; body: PatternNode; min: number; max: number };

/** Deepest group nesting the parser accepts; deeper patterns are refused by the caller. */
export const MAX_GROUP_DEPTH = 64;

export class PatternTooComplex extends Error {}

/** Parses a regular expression source (already known to compile with the `u` flag). */
export function parsePattern(source: string): PatternNode {
  const parser = new Parser(source);
  const node = parser.alternation(0);
  return node;
}

const SIMPLE_ESCAPES: Record<string, number> = { t: 9, n: 10, v: 11, f: 12, r: 13, '0': 0 };

class Parser {
  private position = 0;

  constructor(private readonly source: string) {}

  alternation(depth: number): PatternNode {
    if (depth > MAX_GROUP_DEPTH) throw new PatternTooComplex(`groups nested deeper than ${MAX_GROUP_DEPTH}`);
    const alternatives = [this.sequence(depth)];
    while (this.peek() === '|') {
      this.position += 1;
      alternatives.push(this.sequence(depth));
    }
    return alternatives.length === 1 ? alternatives[0]! : { kind: 'alternation', alternatives };
  }

  private sequence(depth: number): PatternNode {
    const items: PatternNode[] = [];
    while (this.position < this.source.length && this.peek() !== '|' && this.peek() !== ')') {
      const atom = this.atom(depth);
      items.push(this.quantified(atom));
    }
    return items.length === 1 ? items[0]! : { kind: 'sequence', items };
  }

  private quantified(atom: PatternNode): PatternNode {
    const character = this.peek();
    let bounds: [number, number] | undefined;
    if (character === '*') bounds = [0, Infinity];
    else if (character === '+') bounds = [1, Infinity];
    else if (character === '?') bounds = [0, 1];
    if (bounds !== undefined) {
      this.position += 1;
    } else if (character === '{') {
      const match = /^\{(\d+)(,(\d*))?\}/.exec(this.source.slice(this.position));
      if (match === null) return atom;
      const min = Number(match[1]);
      const max = match[2] === undefined ? min : match[3] === '' ? Infinity : Number(match[3]);
      bounds = [min, max];
      this.position += match[0].length;
    } else {
      return atom;
    }
    if (this.peek() === '?') this.position += 1; // lazy: same backtracking shape
    return { kind: 'repeat', body: atom, min: bounds[0], max: bounds[1] };
  }

  private atom(depth: number): PatternNode {
    const character = this.next();
    switch (character) {
      case '^':
      case '$':
        return { kind: 'assertion' };
      case '.':
        return { kind: 'chars', set: dotSet() };
      case '(':
        return this.group(depth);
      case '[':
        return { kind: 'chars', set: this.characterClass() };
      case '\\':
        return this.escape();
      default:
        return { kind: 'chars', set: CharSet.single(this.literal(character)) };
    }
  }

  private group(depth: number): PatternNode {
    let lookaround = false;
    if (this.source.startsWith('?:', this.position)) {
      this.position += 2;
    } else if (this.source.startsWith('?=', this.position) || this.source.startsWith('?!', this.position)) {
      this.position += 2;
      lookaround = true;
    } else if (this.source.startsWith('?<=', this.position) || this.source.startsWith('?<!', this.position)) {
      this.position += 3;
      lookaround = true;
    } else if (this.source.startsWith('?<', this.position)) {
      this.position = this.source.indexOf('>', this.position) + 1;
    }
    const body = this.alternation(depth + 1);
    this.position += 1; // ')'
    return lookaround ? { kind: 'lookaround', body } : { kind: 'group', body };
  }

  private escape(): PatternNode {
    const letter = this.next();
    if (letter === 'b' || letter === 'B') return { kind: 'assertion' };
    const classSet = classEscapeSet(letter);
    if (classSet !== undefined) return { kind: 'chars', set: classSet };
    if (letter === 'p' || letter === 'P') {
      this.skipBraces();
      return { kind: 'chars', set: CharSet.all() };
    }
    if (letter === 'k') {
      this.position = this.source.indexOf('>', this.position) + 1;
      return { kind: 'backreference' };
    }
    if (/[1-9]/.test(letter)) {
      while (/\d/.test(this.peek())) this.position += 1;
      return { kind: 'backreference' };
    }
    return { kind: 'chars', set: CharSet.single(this.escapedCodePoint(letter)) };
  }

  /** The code point of a character escape whose letter was just read (not a class escape). */
  private escapedCodePoint(letter: string): number {
    const simple = SIMPLE_ESCAPES[letter];
    if (simple !== undefined) return simple;
    if (letter === 'c') return this.next().charCodeAt(0) % 32;
    if (letter === 'x') return this.hex(2);
    if (letter === 'u') {
      if (this.peek() === '{') {
        const end = this.source.indexOf('}', this.position);
        const value = parseInt(this.source.slice(this.position + 1, end), 16);
        this.position = end + 1;
        return value;
      }
      return this.hex(4);
    }
    return this.literal(letter);
  }

  private characterClass(): CharSet {
    let negated = false;
    if (this.peek() === '^') {
      negated = true;
      this.position += 1;
    }
    let set = CharSet.empty();
    while (this.peek() !== ']') {
      const low = this.classAtom();
      if (this.peek() === '-' && this.source[this.position + 1] !== ']' && typeof low === 'number') {
        this.position += 1;
        const high = this.classAtom();
        set = set.union(typeof high === 'number' ? CharSet.of([[low, high]]) : high.union(CharSet.single(low)));
      } else {
        set = set.union(typeof low === 'number' ? CharSet.single(low) : low);
      }
    }
    this.position += 1; // ']'
    return negated ? set.complement() : set;
  }

  /** One class member: a code point, or a set for class escapes. */
  private classAtom(): number | CharSet {
    const character = this.next();
    if (character !== '\\') return this.literal(character);
    const letter = this.next();
    const classSet = classEscapeSet(letter);
    if (classSet !== undefined) return classSet;
    if (letter === 'p' || letter === 'P') {
      this.skipBraces();
      return CharSet.all();
    }
    if (letter === 'b') return 8;
    if (letter === '-') return 0x2d;
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

  private skipBraces(): void {
    if (this.peek() === '{') this.position = this.source.indexOf('}', this.position) + 1;
  }

  private peek(): string {
    return this.source[this.position] ?? '';
  }

  private next(): string {
    const character = this.source[this.position] ?? '';
    this.position += 1;
    return character;
  }
}
