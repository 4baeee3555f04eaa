/**
 * Property-style test of the think-tag splitter: random texts of tags, words, spaces and
 * multi-byte characters (seeded, reproducible), pushed in random pieces, must split exactly as
 * the whole text does.
 */
import { describe, expect, it } from 'vitest';
import { createThinkTagSplitter, splitThinking } from '../../src/llm/think-tags.js';
import { seededRandom as random } from '../support/seeded-random.js';

const PIECES = [
  '<think>',
  '</think>',
  '<THINK>',
  ' ',
  '\n\n',
  'tea',
  ' °C',
  '東京',
  '<',
  '</',
  'think',
  '>',
  'a < b',
  '<th',
  'ink>',
];

describe('the streamed splitter, cut anywhere', () => {
  it('gives the whole-text split for 1,000 random texts and cuts; its answer deltas are the answer unless a lone </think> came', () => {
    const next = random(22);
    for (let round = 0; round < 1_000; round++) {
      const text = Array.from(
        { length: 1 + Math.floor(next() * 12) },
        () => PIECES[Math.floor(next() * PIECES.length)]!,
      ).join('');
      const splitter = createThinkTagSplitter();
      let answer = '';
      let position = 0;
      while (position < text.length) {
        const size = 1 + Math.floor(next() * 6);
        answer += splitter.push(text.slice(position, position + size)).answer;
        position += size;
      }
      answer += splitter.finish().answer;
      const whole = splitThinking(text);
      expect(splitter.result(), JSON.stringify(text)).toEqual(whole);
      if (!hasLoneClose(text)) expect(answer, JSON.stringify(text)).toBe(whole.answer);
    }
  });
});

/** A `</think>` met outside a block (the splitter moves the answer before it to the reasoning). */
function hasLoneClose(text: string): boolean {
  let inside = false;
  for (const match of text.toLowerCase().matchAll(/<\/?think>/g)) {
    if (match[0] === '<think>') inside = true;
    else if (!inside) return true;
    else inside = false;
  }
  return false;
}
