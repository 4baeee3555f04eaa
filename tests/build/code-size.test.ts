/**
 * bench/code-size.mjs measures the largest files and functions of src/ (issue 11's closing
 * figures): it must find every kind of function, name it as a reader would, and count its lines.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error plain ESM script without types
import { functionSizes, measure } from '../../bench/code-size.mjs';

interface Sized {
  name: string;
  line: number;
  lines: number;
}

describe('bench/code-size.mjs', () => {
  it('finds declarations, methods, arrows and constructors with their first line and length', () => {
    const text = [
      'export function outer(a: number): number {', // 1
      '  const inner = (b: number) => {', // 2
      '    return b + 1;', // 3
      '  };', // 4
      '  return inner(a);', // 5
      '}', // 6
      'class Box {', // 7
      '  constructor(readonly v: number) {}', // 8
      '  get twice(): number {', // 9
      '    return this.v * 2;', // 10
      '  }', // 11
      '}', // 12
      'const handlers = { onEvent: function () { return 1; } };', // 13
      'declare function typed(x: number): void;', // 14: no body, not counted
    ].join('\n');
    const sizes: Sized[] = functionSizes('fixture.ts', text);
    expect(sizes.map(({ name, line, lines }) => [name, line, lines])).toEqual([
      ['outer', 1, 6],
      ['inner', 2, 3],
      ['constructor', 8, 1],
      ['twice', 9, 3],
      ['onEvent', 13, 1],
    ]);
  });

  it('ranks src/ and leaves tests out', () => {
    const result = measure(path.resolve(import.meta.dirname, '../../src'), 3);
    expect(result.files).toHaveLength(3);
    expect(result.files[0].lines).toBeGreaterThanOrEqual(result.files[2].lines);
    expect(result.functions[0].lines).toBeGreaterThanOrEqual(result.functions[2].lines);
    expect(result.files.every((entry: { file: string }) => !entry.file.endsWith('.test.ts'))).toBe(true);
  });
});
