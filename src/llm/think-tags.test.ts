import { describe, expect, it } from 'vitest';
import { createThinkTagSplitter, splitThinking } from './think-tags.js';

describe('splitThinking', () => {
  const cases: [string, string, { answer: string; reasoning?: string }][] = [
    ['no tags: unchanged, whitespace kept', '  Hello\n', { answer: '  Hello\n' }],
    ['a block before the answer', '<think>\nwhy\n</think>\n\nBecause.', { answer: 'Because.', reasoning: 'why' }],
    ['tags in any case', '<THINK>a</Think>b', { answer: 'b', reasoning: 'a' }],
    ['two blocks', '<think>a</think>x<think>b</think>y', { answer: 'xy', reasoning: 'a\n\nb' }],
    ['a lone closing tag', 'mulling it over</think>\n\nYes.', { answer: 'Yes.', reasoning: 'mulling it over' }],
    ['an unclosed block', 'Hi <think>still thinking', { answer: 'Hi ', reasoning: 'still thinking' }],
    ['an empty block', '<think></think>Answer', { answer: 'Answer' }],
    ['a tag-like word is text', '<thinking>x</thinking> and a < b', { answer: '<thinking>x</thinking> and a < b' }],
  ];
  for (const [name, text, expected] of cases) {
    it(name, () => expect(splitThinking(text)).toEqual(expected));
  }
});

/** Mulberry32: a tiny seeded PRNG, so failures reproduce. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = Math.imul(state ^ (state >>> 15), 1 | state);
    value ^= value + Math.imul(value ^ (value >>> 7), 61 | value);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = ['<think>', '</think>', '<THINK>', ' ', '\n\n', 'tea', ' °C', '東京', '<', '</', 'think', '>', 'a < b', '<th', 'ink>'];

describe('the streamed splitter, cut anywhere', () => {
  it('gives the whole-text split for 1,000 random texts and cuts; its answer deltas are the answer unless a lone </think> came', () => {
    const next = random(22);
    for (let round = 0; round < 1_000; round++) {
      const text = Array.from({ length: 1 + Math.floor(next() * 12) }, () => PIECES[Math.floor(next() * PIECES.length)]!).join('');
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
