/**
 * CharSet: a set of Unicode code points as sorted, non-overlapping inclusive ranges. Used when
 * translating JavaScript patterns for the linear-time engine, to spell out JavaScript's own
 * meaning of `\s` and `\S` as explicit ranges.
 */

export type CodePointRange = readonly [low: number, high: number];

export const MAX_CODE_POINT = 0x10ffff;

export class CharSet {
  /** Sorted, merged, inclusive ranges. */
  readonly ranges: readonly CodePointRange[];

  private constructor(ranges: readonly CodePointRange[]) {
    this.ranges = ranges;
  }

  /** A set built from any ranges (unsorted, overlapping or reversed ones are normalised). */
  static of(ranges: Iterable<CodePointRange>): CharSet {
    const sorted = [...ranges]
      .map(([low, high]) => (low <= high ? ([low, high] as const) : ([high, low] as const)))
      .sort((left, right) => left[0] - right[0]);
    const merged: Array<[number, number]> = [];
    for (const [low, high] of sorted) {
      const last = merged[merged.length - 1];
      if (last !== undefined && low <= last[1] + 1) last[1] = Math.max(last[1], high);
      else merged.push([low, high]);
    }
    return new CharSet(merged);
  }

  static empty(): CharSet {
    return new CharSet([]);
  }

  static all(): CharSet {
    return new CharSet([[0, MAX_CODE_POINT]]);
  }

  static single(codePoint: number): CharSet {
    return new CharSet([[codePoint, codePoint]]);
  }

  get isEmpty(): boolean {
    return this.ranges.length === 0;
  }

  union(other: CharSet): CharSet {
    return CharSet.of([...this.ranges, ...other.ranges]);
  }

  complement(): CharSet {
    const result: Array<[number, number]> = [];
    let next = 0;
    for (const [low, high] of this.ranges) {
      if (low > next) result.push([next, low - 1]);
      next = high + 1;
    }
    if (next <= MAX_CODE_POINT) result.push([next, MAX_CODE_POINT]);
    return new CharSet(result);
  }

  /** True when some code point is in both sets. */
  overlaps(other: CharSet): boolean {
    let left = 0;
    let right = 0;
    while (left < this.ranges.length && right < other.ranges.length) {
      const [lowA, highA] = this.ranges[left]!;
      const [lowB, highB] = other.ranges[right]!;
      if (highA < lowB) left += 1;
      else if (highB < lowA) right += 1;
      else return true;
    }
    return false;
  }
}

const DIGIT: CodePointRange[] = [[0x30, 0x39]];
const WORD: CodePointRange[] = [[0x30, 0x39], [0x41, 0x5a], [0x5f, 0x5f], [0x61, 0x7a]];
// The code points JavaScript's \s matches (WhiteSpace and LineTerminator of ECMA-262).
const SPACE: CodePointRange[] = [
  [0x09, 0x0d], [0x20, 0x20], [0xa0, 0xa0], [0x1680, 0x1680], [0x2000, 0x200a],
  [0x2028, 0x2029], [0x202f, 0x202f], [0x205f, 0x205f], [0x3000, 0x3000], [0xfeff, 0xfeff],
];
const LINE_TERMINATORS: CodePointRange[] = [[0x0a, 0x0a], [0x0d, 0x0d], [0x2028, 0x2029]];

/** The set of a class escape letter (`d`, `D`, `w`, `W`, `s`, `S`), or undefined for others. */
export function classEscapeSet(letter: string): CharSet | undefined {
  switch (letter) {
    case 'd': return CharSet.of(DIGIT);
    case 'D': return CharSet.of(DIGIT).complement();
    case 'w': return CharSet.of(WORD);
    case 'W': return CharSet.of(WORD).complement();
    case 's': return CharSet.of(SPACE);
    case 'S': return CharSet.of(SPACE).complement();
    default: return undefined;
  }
}

/** What `.` matches without the `s` flag. */
export function dotSet(): CharSet {
  return CharSet.of(LINE_TERMINATORS).complement();
}
