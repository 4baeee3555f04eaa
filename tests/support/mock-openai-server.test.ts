import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockOpenAI, type MockOpenAI } from './mock-openai-server.js';

let server: MockOpenAI;
beforeAll(async () => {
  server = await startMockOpenAI({
    replies: ['one', { content: 'two', usage: { prompt_tokens: 1, completion_tokens: 2 } }],
    chunkSize: 2,
  });
});
afterAll(() => server.close());

const post = (body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${server.url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

describe('startMockOpenAI', () => {
  it('listens on 127.0.0.1, lists models and answers CORS preflights', async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const models = await fetch(`${server.url}/models`);
    expect(models.headers.get('access-control-allow-origin')).toBe('*');
    expect(await models.json()).toMatchObject({ data: [{ id: 'mock-model' }] });
    const preflight = await fetch(`${server.url}/chat/completions`, { method: 'OPTIONS' });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toContain('authorization');
  });

  it('answers replies in order, repeats the last, and records requests', async () => {
    server.setReplies(['one', { content: 'two', usage: { prompt_tokens: 1, completion_tokens: 2 } }]);
    const contents: string[] = [];
    for (let index = 0; index < 3; index++)
      contents.push(
        (await (await post({ messages: [], n: index }, { authorization: 'Bearer t' })).json()).choices[0].message
          .content,
      );
    expect(contents).toEqual(['one', 'two', 'two']);
    expect(server.chatRequests.at(-1)).toMatchObject({
      body: { n: 2 },
      headers: { authorization: 'Bearer t' },
      aborted: false,
    });
  });

  it('streams SSE chunks of chunkSize characters ending with usage and [DONE]', async () => {
    server.setReplies(['abcdef']);
    const text = await (await post({ stream: true, stream_options: { include_usage: true } })).text();
    const payloads = text
      .split('\n\n')
      .filter(Boolean)
      .map((line) => line.replace(/^data: /, ''));
    expect(payloads.at(-1)).toBe('[DONE]');
    const chunks = payloads.slice(0, -1).map((payload) => JSON.parse(payload));
    expect(chunks.map((chunk) => chunk.choices[0]?.delta?.content ?? '').join('')).toBe('abcdef');
    expect(chunks.filter((chunk) => chunk.choices[0]?.delta?.content)).toHaveLength(3);
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { total_tokens: expect.any(Number) } });
  });

  it('applies a fault to the next `times` requests only', async () => {
    server.setReplies(['fine']);
    server.setFault({ type: 'status', status: 429, retryAfter: '1', times: 1 });
    const limited = await post({});
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('1');
    expect((await post({})).status).toBe(200);
  });

  it('can duplicate a chunk and cut a stream', async () => {
    server.setReplies(['abcdef']);
    server.setFault({ type: 'duplicate_chunk', at: 1, times: 1 });
    const duplicated = (await (await post({ stream: true })).text()).split('\n\n').filter(Boolean);
    expect(duplicated[1]).toBe(duplicated[2]);
    server.setFault({ type: 'cut', afterChunks: 2, times: 1 });
    const cut = (await (await post({ stream: true })).text()).split('\n\n').filter(Boolean);
    expect(cut).toHaveLength(2);
  });
});
