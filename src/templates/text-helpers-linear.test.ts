/**
 * Issue 12 point 4 (regexes on agent or model text): the float-text and `%`-format scanners are
 * unambiguous, so hostile text answers at once instead of backtracking quadratically.
 */
import { describe, expect, it } from 'vitest';
import { parseFloatText, percentFormat } from './text-helpers.js';

describe('text helpers stay linear on hostile text', () => {
  it('float text: long digit runs with a bad tail', () => {
    expect(parseFloatText(`${'1'.repeat(200_000)}x`)).toBeUndefined();
    expect(parseFloatText(`${'1'.repeat(100_000)}.${'1'.repeat(100_000)}x`)).toBeUndefined();
    expect(parseFloatText('-1.5e3')).toBe(-1500);
    expect(parseFloatText('1.')).toBe(1);
    expect(parseFloatText('.5')).toBe(0.5);
  }, 5_000);

  it('% formatting: zero runs after a percent sign', () => {
    const hostile = `%${'0'.repeat(200_000)}z`;
    expect(percentFormat(hostile, [], 1_000_000)).toBe(hostile);
    // biome-ignore lint/suspicious/noApproximativeNumericConstant: the digits a user typed, not π
    const number = { text: '3.14159', number: 3.14159 };
    expect(
      percentFormat(
        '[%05.1f] [%010.3f] [%-6s] [%3d]',
        [number, number, { text: 'ab', number: undefined }, { text: '7', number: 7 }],
        1000,
      ),
    ).toBe('[003.1] [000003.142] [ab    ] [  7]');
  }, 5_000);
});
