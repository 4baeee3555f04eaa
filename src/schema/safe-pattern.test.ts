import { describe, expect, it } from 'vitest';
import { compileSafePattern, PatternProblem } from './safe-pattern.js';

function refusal(source: string, flags = {}): string {
  try {
    compileSafePattern(source, flags);
  } catch (error) {
    expect(error).toBeInstanceOf(PatternProblem);
    return (error as Error).message;
  }
  throw new Error(`expected ${source} to be refused`);
}

describe('compileSafePattern: JavaScript meaning on the linear-time engine', () => {
  // Each pair is checked against JavaScript's own RegExp (safe inputs only), so the translation
  // keeps what the pattern means in the JSON Schema / JS dialect.
  const cases: Array<[string, string[]]> = [
    ['^\\d{4}-\\d{2}-\\d{2}$', ['2026-11-23', '2026-1-23', 'x2026-11-23']],
    ['^a.c$', ['abc', 'a\nc', 'a\rc', 'a\u2028c', 'a😀c']],
    ['^\\s+$', [' \t', '\u00a0\u3000\ufeff', 'a ']],
    ['^[^\\s]+$', ['ab', 'a\u2029b']],
    ['^\\S\\S$', ['ab', 'a ']],
    ['^\\p{L}+$', ['éa', 'a1', 'Ωmega']],
    ['^\\P{L}+$', ['12', 'a1']],
    ['^\\p{Letter}\\p{Nd}$', ['a1', '11']],
    ['^\\p{Script=Greek}+$', ['αβ', 'ab']],
    ['^\\p{gc=Lu}$', ['A', 'a']],
    ['^\\p{sc=Grek}\\p{Emoji}$', ['α😀', 'a😀']],
    ['^[^\\P{Lu}\\d]+$', ['AB', 'A1', 'a']],
    ['^[\\p{Lu}\\d_]+$', ['A1_', 'a']],
    ['^[]$', ['a', '']],
    ['^[^]$', ['\n', 'ab']],
    ['^\\u{1F600}$', ['😀', 'x']],
    ['^\\uD83D\\uDE00$', ['😀']],
    ['^.$', ['😀', 'ab']],
    ['^(?<year>\\d+)-x$', ['12-x', 'a-x']],
    ['^[a\\-z]+$', ['-az', 'b']],
    ['^\\/x\\.\\*$', ['/x.*', '/xa*']],
    ['^\\cJ\\t\\x41\\u0042\\0$', ['\n\tAB\0']],
    ['^[\\b]$', ['\b', 'b']],
    ['\\bword\\b', ['a word here', 'swordfish']],
    ['^a{2,3}$', ['a', 'aa', 'aaa', 'aaaa']],
    ['^(?:ab){1,4}c$', ['abc', 'ababababc', 'abababababc', 'c']],
    ['^(?:ab|cd)+?e$', ['abcde', 'abe', 'ace']],
    ['colou?r', ['my color', 'colour', 'colr']],
    ['^[[:a]+$', ['[:a', 'b', ':alpha:']],
    ['', ['', 'x']],
  ];
  it.each(cases)('%s agrees with RegExp', (source, inputs) => {
    const safe = compileSafePattern(source);
    const native = new RegExp(source, 'u');
    for (const input of inputs) expect([input, safe.test(input)]).toEqual([input, native.test(input)]);
  });

  it('applies the i, m and s flags', () => {
    expect(compileSafePattern('^[ä-ö]+$', { ignoreCase: true }).test('ÄÖ')).toBe(true);
    expect(compileSafePattern('^a$', { multiline: true }).test('x\r\na\u2028y')).toBe(true);
    expect(compileSafePattern('^hello$', { ignoreCase: true }).test('HeLLo')).toBe(true);
    expect(compileSafePattern('^b$', { multiline: true }).test('a\nb\nc')).toBe(true);
    expect(compileSafePattern('^b$').test('a\nb\nc')).toBe(false);
    expect(compileSafePattern('^a.b$', { dotAll: true }).test('a\nb')).toBe(true);
  });
});

describe('compileSafePattern: random small patterns agree with RegExp', () => {
  // A seeded generator of patterns over a tiny alphabet; short subjects keep RegExp fast, so
  // it can serve as the oracle for the NFA construction and simulation.
  function random(seed: number): () => number {
    let state = seed;
    return () => {
      state = (state * 1103515245 + 12345) % 2147483648;
      return state / 2147483648;
    };
  }
  const atoms = ['a', 'b', '.', '[ab]', '[^a]', '\\d', '\\w', '\\s', '1'];
  function pattern(next: () => number, depth: number): string {
    const roll = next();
    if (depth === 0 || roll < 0.3) return atoms[Math.floor(next() * atoms.length)]!;
    if (roll < 0.5) return pattern(next, depth - 1) + pattern(next, depth - 1);
    if (roll < 0.65) return `(?:${pattern(next, depth - 1)}|${pattern(next, depth - 1)})`;
    const quantifiers = ['*', '+', '?', '{2}', '{1,3}', '{0,4}', '{0,}', '*?', '{2,}'];
    return `(${pattern(next, depth - 1)})${quantifiers[Math.floor(next() * quantifiers.length)]}`;
  }
  it('on 400 patterns × 25 subjects, with and without anchors and \\b', () => {
    const next = random(12);
    for (let round = 0; round < 400; round += 1) {
      let source = pattern(next, 4);
      if (round % 3 === 0) source = `^${source}$`;
      if (round % 7 === 0) source = `\\b${source}`;
      const safe = compileSafePattern(source);
      const native = new RegExp(source, 'u');
      for (let sample = 0; sample < 25; sample += 1) {
        const subject = Array.from({ length: Math.floor(next() * 9) }, () => 'ab1 _\n'[Math.floor(next() * 6)]).join(
          '',
        );
        expect([source, subject, safe.test(subject)]).toEqual([source, subject, native.test(subject)]);
      }
    }
  });
});

describe('compileSafePattern: hostile patterns end fast with the right answer', () => {
  const subject = 'a'.repeat(300);
  // Every one of these takes seconds to forever with a backtracking engine on these inputs.
  const hostile: Array<[string, string, boolean]> = [
    ['^a*a*a*a*a*b$', subject, false],
    ['^.*,.*,.*,.*,.*,x$', ','.repeat(300), false],
    ['^(a+)+$', `${subject}!`, false],
    ['^(a|aa)*b$', subject, false],
    ['(a|aa)*b', subject, false],
    ['^(\\w+\\s?)*$', `${'word '.repeat(60)}!`, false],
    ['^(?:\\p{L}+\\s?)*$', `${'é '.repeat(150)}1`, false],
    ['^(\\p{Lu}|\\p{L})*$', `${'A'.repeat(300)}1`, false],
    ['^(.*a){12}$', `${subject}b`, false],
    ['^([a-z]+\\d*)+$', `${'ab1'.repeat(100)}!`, false],
    ['^(a+)+$', subject, true],
    ['^(\\w+\\s?)*$', 'word '.repeat(60), true],
  ];
  it.each(hostile)(
    '%s',
    (source, input, expected) => {
      expect(compileSafePattern(source).test(input)).toBe(expected);
    },
    10_000,
  );

  it('stays linear on 100,000 characters', () => {
    expect(compileSafePattern('^(a+)+$').test(`${'a'.repeat(100_000)}!`)).toBe(false);
    expect(compileSafePattern('^(?:\\p{L}+\\s?)*$').test(`${'é '.repeat(50_000)}1`)).toBe(false);
    expect(compileSafePattern('^(.*,){5}x$').test(','.repeat(100_000))).toBe(false);
  }, 10_000);
});

describe('compileSafePattern: refused at compile time', () => {
  it.each([
    ['(?=a)a', /lookahead/],
    ['^(?!admin).*$', /lookahead/],
    ['(?<=a)b', /lookbehind/],
    ['(?<!a)b', /lookbehind/],
    ['(a)\\1', /back-reference/],
    ['(?<n>a)\\k<n>', /back-reference/],
    ['[a-', /invalid regular expression/],
    ['(unclosed', /invalid regular expression/],
    ['a{5001}', /too large/],
    ['a{1000}'.repeat(6), /too large/],
    ['(?:\\p{L}{100}){60}', /too large/],
    ['(?:.{0,100}x){60}', /too large/],
  ])(
    '%s',
    (source, reason) => {
      expect(refusal(source)).toMatch(reason);
    },
    1_000,
  );

  it('refuses sources longer than the cap', () => {
    expect(refusal('a'.repeat(4097))).toMatch(/longer than 4096/);
    expect(() => compileSafePattern('a'.repeat(600), {}, 500)).toThrow(PatternProblem);
  });
});
