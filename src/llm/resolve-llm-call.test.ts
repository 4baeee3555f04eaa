import { describe, expect, it } from 'vitest';
import { resolveLlmCall } from './resolve-llm-call.js';

const code = (action: () => unknown): string => {
  try {
    action();
  } catch (error) {
    return (error as { code: string }).code;
  }
  return 'no error';
};

describe('resolveLlmCall', () => {
  it('layers settings ← params ← overrides key by key, the endpoint as a pair', () => {
    const { connection, request } = resolveLlmCall(
      { provider: 'lmstudio', model: 'a', temperature: 0.1, api_key: 'k1', timeout: 2, max_retries: 1 },
      { prompt: 'p', model: 'b', max_tokens: '64', top_p: 0.9 },
      { model: 'c', api_key: 'k3' },
    );
    expect(connection).toEqual({ provider: 'lmstudio', api_key: 'k3', timeout_ms: 2000, max_retries: 1 });
    expect(request).toEqual({
      messages: [{ role: 'user', content: 'p' }],
      model: 'c',
      temperature: 0.1,
      max_tokens: 64,
      top_p: 0.9,
    });
    expect(
      resolveLlmCall({ provider: 'scripted', scripted: ['x'] }, { prompt: 'p', base_url: 'http://call/v1' }, {})
        .connection,
    ).toEqual({ api_base: 'http://call/v1', scripted: ['x'] });
  });

  it.each([
    ['json_object', { type: 'json_object' }],
    [{ type: 'json_object' }, { type: 'json_object' }],
    [
      { type: 'json_schema', schema: { type: 'object' } },
      { type: 'json_schema', json_schema: { name: 'response', schema: { type: 'object' } } },
    ],
    [
      { type: 'json_schema', json_schema: { name: 'p', schema: { type: 'object' }, strict: true } },
      { type: 'json_schema', json_schema: { name: 'p', schema: { type: 'object' }, strict: true } },
    ],
  ])('response_format %j', (given, expected) => {
    expect(resolveLlmCall({}, { prompt: 'p', response_format: given }, {}).request.response_format).toEqual(expected);
  });

  it('renders non-string prompts as JSON and keeps tool messages', () => {
    const { request } = resolveLlmCall(
      {},
      {
        messages: [
          { role: 'user', content: { a: 1 } },
          { role: 'tool', content: 'r', tool_call_id: 'c1' },
        ],
      },
      {},
    );
    expect(request.messages).toEqual([
      { role: 'user', content: '{"a":1}' },
      { role: 'tool', content: 'r', tool_call_id: 'c1' },
    ]);
  });

  it.each<[Record<string, unknown>, string]>([
    [{}, 'no prompt'],
    [{ messages: [] }, 'empty messages'],
    [{ messages: [{ role: 'robot', content: 'x' }] }, 'bad role'],
    [{ prompt: 'p', temperature: 'hot' }, 'temperature'],
    [{ prompt: 'p', max_tokens: 1.5 }, 'max_tokens'],
    [{ prompt: 'p', response_format: { type: 'json_schema' } }, 'json_schema without schema'],
    [{ prompt: 'p', timeout: -1 }, 'negative timeout'],
  ])('%j is INVALID_PARAMS (%s)', (params) => {
    expect(code(() => resolveLlmCall({}, params, {}))).toBe('INVALID_PARAMS');
  });
});
