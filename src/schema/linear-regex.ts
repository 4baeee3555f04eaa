/**
 * LinearRegex: a small linear-time regular-expression matcher for untrusted patterns
 * (JavaScript syntax, Unicode mode). The pattern is parsed into a tree, compiled into a Thompson
 * NFA and simulated one code point at a time with a set of active states, so matching costs at
 * most (program size × text length) steps whatever the pattern: no backtracking.
 *
 * What each single-character atom matches (`a`, `.`, `[^\s\p{L}]`, `\d`, `\u{1F600}`, …) is
 * decided by JavaScript itself: the atom's own source is compiled as `^(?:atom)$` with the
 * pattern's flags and tested on one code point, which cannot backtrack. So classes, escapes,
 * Unicode properties and case folding mean exactly what they mean in JavaScript, with no
 * Unicode tables shipped. Results are cached per atom.
 *
 * Not supported (refused by the parser, `PatternProblem`): back-references and lookaround,
 * which no linear-time automaton can run.
 */
import { Parser, PatternProblem, type CharTest, type Tree } from './regex-parser.js';

export { PatternProblem };

/** Thrown by `run` when the step budget is spent. */
export class PatternStepsExceeded extends Error {
  constructor(readonly steps: number) {
    super(`regular expression step budget (${steps}) spent`);
  }
}

export interface LinearRegexFlags {
  ignoreCase?: boolean;
  multiline?: boolean;
  dotAll?: boolean;
}

const CHAR = 0;
const SPLIT = 1;
const ASSERT = 2;
const MATCH = 3;

interface Instruction {
  op: number;
  test?: CharTest;
  which?: string;
  out: number[];
}

/**
 * A compiled pattern. `run` is synchronous; the scratch arrays belong to this object only.
 * @example new LinearRegex('^(a+)+$').test('a'.repeat(100_000) + '!') // false, in linear time
 */
export class LinearRegex {
  readonly size: number;
  // The program as flat arrays (one shape, fast to read): op, first successor, character test,
  // assertion kind, and every successor of a split.
  private readonly ops: Uint8Array;
  private readonly next: Int32Array;
  private readonly tests: Array<CharTest | undefined>;
  private readonly asserts: string[];
  private readonly splits: number[][];
  private readonly start: number;
  private readonly multiline: boolean;
  private marks: Int32Array;
  private generation = 0;
  private readonly stack: number[] = [];

  constructor(source: string, flags: LinearRegexFlags = {}, maxProgramSize = 5000) {
    const tree = new Parser(source, flags).parse();
    const builder = new ProgramBuilder(maxProgramSize);
    const match = builder.push({ op: MATCH, out: [] });
    this.start = builder.emit(tree, match);
    const program = builder.program;
    this.size = program.length;
    this.ops = Uint8Array.from(program, (instruction) => instruction.op);
    this.next = Int32Array.from(program, (instruction) => instruction.out[0] ?? -1);
    this.tests = program.map((instruction) => instruction.test);
    this.asserts = program.map((instruction) => instruction.which ?? '');
    this.splits = program.map((instruction) => instruction.out);
    this.multiline = flags.multiline === true;
    this.marks = new Int32Array(this.size);
  }

  test(text: string, maxSteps = Infinity): boolean {
    return this.run(text, maxSteps).matched;
  }

  /** Searches `text` (unanchored, like `RegExp.prototype.test`); counts the steps it took. */
  run(text: string, maxSteps = Infinity): { matched: boolean; steps: number } {
    this.stack.length = 0;
    let steps = 0;
    let current: number[] = [];
    let following: number[] = [];
    let previous = -1;
    let index = 0;
    let codePoint = text.length > 0 ? text.codePointAt(0)! : -1;
    let mark = this.nextMark();
    while (true) {
      const visited = this.closure(this.start, current, mark, text, index, previous, codePoint);
      if (visited < 0) return { matched: true, steps: steps - visited };
      steps += visited;
      if (steps > maxSteps) throw new PatternStepsExceeded(maxSteps);
      if (index >= text.length || (current.length === 0 && this.anchoredAtStart(index)))
        return { matched: false, steps };
      const width = codePoint > 0xffff ? 2 : 1;
      const nextIndex = index + width;
      const nextCodePoint = nextIndex < text.length ? text.codePointAt(nextIndex)! : -1;
      const nextMark = this.nextMark();
      for (let item = 0; item < current.length; item += 1) {
        const pc = current[item]!;
        steps += 1;
        if (!this.tests[pc]!(codePoint, text, index, width)) continue;
        const reached = this.closure(this.next[pc]!, following, nextMark, text, nextIndex, codePoint, nextCodePoint);
        if (reached < 0) return { matched: true, steps: steps - reached };
        steps += reached;
      }
      if (steps > maxSteps) throw new PatternStepsExceeded(maxSteps);
      const swap = current;
      current = following;
      following = swap;
      following.length = 0;
      mark = nextMark;
      previous = codePoint;
      codePoint = nextCodePoint;
      index = nextIndex;
    }
  }

  /**
   * Adds the states reachable from `from` without consuming a character to `list` (character
   * states only). Returns the number of states visited, or its negation when MATCH was reached.
   */
  private closure(
    from: number,
    list: number[],
    mark: number,
    text: string,
    at: number,
    before: number,
    after: number,
  ): number {
    const stack = this.stack;
    let visited = 0;
    stack.push(from);
    while (stack.length > 0) {
      const pc = stack.pop()!;
      if (this.marks[pc] === mark) continue;
      this.marks[pc] = mark;
      visited += 1;
      const op = this.ops[pc];
      if (op === CHAR) {
        list.push(pc);
      } else if (op === SPLIT) {
        const outs = this.splits[pc]!;
        for (let branch = outs.length - 1; branch >= 0; branch -= 1) stack.push(outs[branch]!);
      } else if (op === ASSERT) {
        if (this.holds(this.asserts[pc]!, at, text.length, before, after)) stack.push(this.next[pc]!);
      } else {
        stack.length = 0;
        return -visited;
      }
    }
    return visited;
  }

  /** True when nothing can start after position 0 (the pattern begins with `^`, no `m` flag). */
  private anchoredAtStart(index: number): boolean {
    return index > 0 && !this.multiline && this.ops[this.start] === ASSERT && this.asserts[this.start] === '^';
  }

  private nextMark(): number {
    this.generation += 1;
    if (this.generation > 0x3fffffff) {
      this.marks = new Int32Array(this.size);
      this.generation = 1;
    }
    return this.generation;
  }

  private holds(which: string, at: number, length: number, before: number, after: number): boolean {
    switch (which) {
      case '^':
        return at === 0 || (this.multiline && isLineTerminator(before));
      case '$':
        return at === length || (this.multiline && isLineTerminator(after));
      case 'b':
        return isWordCharacter(before) !== isWordCharacter(after);
      default:
        return isWordCharacter(before) === isWordCharacter(after);
    }
  }
}

function isLineTerminator(codePoint: number): boolean {
  return codePoint === 0x0a || codePoint === 0x0d || codePoint === 0x2028 || codePoint === 0x2029;
}

function isWordCharacter(codePoint: number): boolean {
  return (
    (codePoint >= 0x30 && codePoint <= 0x39) ||
    (codePoint >= 0x41 && codePoint <= 0x5a) ||
    (codePoint >= 0x61 && codePoint <= 0x7a) ||
    codePoint === 0x5f
  );
}

/** Thompson construction, back to front: each node is emitted with the index it continues to. */
class ProgramBuilder {
  readonly program: Instruction[] = [];

  constructor(private readonly maxSize: number) {}

  push(instruction: Instruction): number {
    if (this.program.length >= this.maxSize) {
      throw new PatternProblem(`pattern too large once repetitions are expanded (more than ${this.maxSize} steps)`);
    }
    this.program.push(instruction);
    return this.program.length - 1;
  }

  emit(node: Tree, next: number): number {
    switch (node.kind) {
      case 'char':
        return this.push({ op: CHAR, test: node.test, out: [next] });
      case 'assert':
        return this.push({ op: ASSERT, which: node.which, out: [next] });
      case 'seq': {
        let start = next;
        for (let index = node.items.length - 1; index >= 0; index -= 1) start = this.emit(node.items[index]!, start);
        return start;
      }
      case 'alt':
        return this.push({ op: SPLIT, out: node.options.map((option) => this.emit(option, next)) });
      case 'repeat': {
        let start = next;
        if (node.max === Infinity) {
          const loop = this.push({ op: SPLIT, out: [] });
          this.program[loop]!.out = [this.emit(node.body, loop), next];
          start = loop;
        } else {
          for (let copy = node.min; copy < node.max; copy += 1)
            start = this.push({ op: SPLIT, out: [this.emit(node.body, start), next] });
        }
        for (let copy = 0; copy < node.min; copy += 1) start = this.emit(node.body, start);
        return start;
      }
    }
  }
}
