import { describe, expect, it } from 'vitest';
import { parseJudgeReply } from './parse-judge-reply.js';

describe('parseJudgeReply', () => {
  it.each([
    ['{"valid": true, "score": 0.9, "reason": "ok"}', true, 0.9],
    ['{"pass": true, "score": 0.95, "feedback": "Looks good!"}', true, 0.95],
    ['{"valid": true}', true, 1],
    ['{"valid": false}', false, 0],
    ['{"pass": "yes"}', true, 1],
    ['{"valid": "false", "score": "0.4"}', false, 0.4],
    ['{"score": 8}', true, 0.8],
    ['{"score": 35}', false, 0.35],
    ['{"score": 0.2}', false, 0.2],
    ['```json\n{"valid": false, "score": 0.1}\n```', false, 0.1],
    ['I think: {"pass": false, "score": 0.3, "feedback": "weak"}. Thanks!', false, 0.3],
    ['<think>hmm valid?</think>{"valid": true, "score": 1}', true, 1],
    ['{"valid": true, "score": 3.5e9}', true, 1],
    ['{"valid": true, "score": -2}', true, 0],
  ])('%s → valid %s, score %s', (text, valid, score) => {
    const verdict = parseJudgeReply(text);
    expect(verdict.valid).toBe(valid);
    expect(verdict.score).toBe(score);
  });

  it.each(['This is valid.', 'VALID', '42', '["valid"]', '{"reason": "fine"}', ''])(
    'never judges %j valid without a readable verdict',
    (text) => {
      const verdict = parseJudgeReply(text);
      expect(verdict.valid).toBe(false);
      expect(verdict.score).toBe(0);
      expect(verdict.feedback).toBe(text);
      expect(verdict.errors[0]!.type).toBe('evaluator_error');
    },
  );

  it('keeps reason, suggestions and listed issues', () => {
    const verdict = parseJudgeReply(
      '{"valid": false, "score": 0.3, "reason": "Missing key info", "suggestions": ["Add more detail", 3], "issues": ["no date"]}',
    );
    expect(verdict.feedback).toBe('Missing key info');
    expect(verdict.suggestions).toEqual(['Add more detail']);
    expect(verdict.errors).toEqual([{ message: 'no date', type: 'judge' }]);
  });
});
