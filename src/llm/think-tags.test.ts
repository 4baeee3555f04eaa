import { describe, expect, it } from 'vitest';
import { splitThinking } from './think-tags.js';

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
