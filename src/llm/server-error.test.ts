import { describe, expect, it } from 'vitest';
import { describeServerError, serverErrorMessage, serverErrorMessageOfBody } from './server-error.js';

describe('serverErrorMessage', () => {
  const shapes: [string, unknown, string | undefined][] = [
    ['OpenAI, Ollama, llama.cpp: {error: {message}}', { error: { message: 'boom', type: 'x' } }, 'boom'],
    [
      'LM Studio, TGI: {error: "…"}',
      { error: 'Unexpected endpoint or method. (POST /chat/completions)' },
      'Unexpected endpoint or method. (POST /chat/completions)',
    ],
    ['vLLM before 0.9: {object: "error", message}', { object: 'error', message: 'too long', code: 400 }, 'too long'],
    ['FastAPI: {detail}', { detail: 'Not Found' }, 'Not Found'],
    ['an error object without message is quoted whole', { error: { code: 7 } }, '{"code":7}'],
    ['a chat completion carries none', { choices: [] }, undefined],
  ];
  for (const [name, value, expected] of shapes) it(name, () => expect(serverErrorMessage(value)).toBe(expected));

  it('a body that is not JSON is quoted as text', () => {
    expect(serverErrorMessageOfBody('  404 page not found\n')).toBe('404 page not found');
  });
});

describe('describeServerError', () => {
  const reasons: [string, string][] = [
    ['the request exceeds the available context size, try increasing it', 'context_exceeded'],
    ["This model's maximum context length is 4096 tokens. However, you requested 5000 tokens", 'context_exceeded'],
    ['Input validation error: `inputs` tokens + `max_new_tokens` must be <= 4096', 'context_exceeded'],
    ['model "llama3.3" not found, try pulling it first', 'model_missing'],
    ['No models loaded. Please load a model in the developer page', 'model_missing'],
    ['The model `llama3` does not exist.', 'model_missing'],
    ['Unexpected endpoint or method. (POST /chat/completions)', 'wrong_endpoint'],
    ['404 page not found', 'wrong_endpoint'],
    ['This server does not support embeddings. Start it with `--embeddings`', 'embeddings_disabled'],
    ['registry.ollama.ai/library/gemma2:latest does not support tools', 'tools_unsupported'],
  ];
  for (const [message, reason] of reasons) {
    it(`recognises ${reason}: ${message.slice(0, 40)}`, () => {
      const report = describeServerError(message, []);
      expect(report.reason).toBe(reason);
      expect(report.quoted).toBe(message);
      expect(report.explanation!.length).toBeGreaterThan(20);
    });
  }

  it('an unrecognised message is quoted without an explanation', () => {
    expect(describeServerError('something odd', [])).toEqual({ quoted: 'something odd' });
  });

  it('redacts before it cuts: a key across the cut leaves no piece of itself', () => {
    const secret = 'sk-canary-0123456789abcdef';
    const report = describeServerError(`${'x'.repeat(290)} ${secret} and more`, [secret]);
    expect(report.quoted).not.toContain('sk-can');
    expect(report.quoted.length).toBeLessThanOrEqual(301);
  });
});
