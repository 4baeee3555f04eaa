import { describe, expect, it } from 'vitest';
import { extractCandidate, looksLikeJson } from './extract-candidate.js';

const llm = (content: string) => ({
  content,
  usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  model: 'm',
  finish_reason: 'stop',
});

describe('extractCandidate', () => {
  it('reads an LLM result content and parses JSON for a schema evaluator', () => {
    expect(extractCandidate(llm('{"a": 1}'), { fromLlm: true, expectJson: true })).toEqual({
      ok: true,
      value: { a: 1 },
    });
    expect(extractCandidate(llm('Here:\n```json\n{"a": [1, 2,]}\n```'), { fromLlm: true, expectJson: true })).toEqual({
      ok: true,
      value: { a: [1, 2] },
    });
    expect(extractCandidate(llm('Sure. {"a": 1} Anything else?'), { fromLlm: true, expectJson: true })).toEqual({
      ok: true,
      value: { a: 1 },
    });
  });

  it('keeps plain text for non-schema evaluators and parses text that looks like JSON', () => {
    expect(extractCandidate(llm('A nice tagline'), { fromLlm: true, expectJson: false })).toEqual({
      ok: true,
      value: 'A nice tagline',
    });
    expect(extractCandidate(llm('{"title": "x"}'), { fromLlm: true, expectJson: false })).toEqual({
      ok: true,
      value: { title: 'x' },
    });
  });

  it('fails with a reason when JSON is expected and cannot be read', () => {
    const result = extractCandidate(llm('no json here'), { fromLlm: true, expectJson: true });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.raw).toBe('no json here');
    expect(extractCandidate('{ not json, at all', { fromLlm: false, expectJson: false }).ok).toBe(false);
  });

  it('accepts text the schema accepts', () => {
    expect(extractCandidate(llm('just words'), { fromLlm: true, expectJson: true, acceptsText: () => true })).toEqual({
      ok: true,
      value: 'just words',
    });
  });

  it('passes non-text results through unchanged', () => {
    const value = { content: 'x', other: 1 };
    expect(extractCandidate(value, { fromLlm: false, expectJson: true })).toEqual({ ok: true, value });
    expect(extractCandidate(42, { fromLlm: true, expectJson: true })).toEqual({ ok: true, value: 42 });
  });

  it('looksLikeJson', () => {
    expect(looksLikeJson(' {"a":1}')).toBe(true);
    expect(looksLikeJson('[1, 2]')).toBe(true);
    expect(looksLikeJson('```json\n{}\n```')).toBe(true);
    expect(looksLikeJson('[link](x) and more')).toBe(false);
    expect(looksLikeJson('Hello {name}')).toBe(false);
  });
});
