import { describe, expect, it } from 'vitest';
import { chatCompletionsUrl, createOpenAiClient, requestBody } from './openai-client.js';
import type { LlmStreamPart } from '../core/model-provider.js';

const sse =
  'data: {"choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}\n\ndata: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n';

function fakeFetch(body: string, headers: Record<string, string>): typeof fetch {
  return (async () => new Response(body, { status: 200, headers })) as unknown as typeof fetch;
}

async function streamed(fetchFunction: typeof fetch): Promise<LlmStreamPart[]> {
  const parts: LlmStreamPart[] = [];
  const client = createOpenAiClient({ api_base: 'http://model.test/v1' }, { fetch: fetchFunction });
  for await (const part of client.stream({ messages: [{ role: 'user', content: 'x' }] })) parts.push(part);
  return parts;
}

describe('createOpenAiClient (no network)', () => {
  it('reads an SSE body whatever its content type says, unless it is JSON', async () => {
    const variants: Record<string, string>[] = [
      {},
      { 'content-type': 'text/plain' },
      { 'content-type': 'text/event-stream; charset=utf-8' },
    ];
    for (const headers of variants) {
      const parts = await streamed(fakeFetch(sse, headers));
      expect(parts.at(-1)).toMatchObject({ type: 'done', response: { content: 'Hi', finish_reason: 'stop' } });
    }
    const whole = JSON.stringify({ choices: [{ message: { content: 'whole' }, finish_reason: 'stop' }] });
    const parts = await streamed(fakeFetch(whole, { 'content-type': 'application/json' }));
    expect(parts).toEqual([{ type: 'delta', content: 'whole' }, expect.objectContaining({ type: 'done' })]);
  });

  it('builds the URL and body from what was given only', () => {
    expect(chatCompletionsUrl('http://h:1/v1/')).toBe('http://h:1/v1/chat/completions');
    expect(chatCompletionsUrl('http://h:1/v1/chat/completions')).toBe('http://h:1/v1/chat/completions');
    expect(requestBody({ messages: [], temperature: 0 }, false)).toEqual({ messages: [], temperature: 0 });
    expect(requestBody({ messages: [], model: 'm' }, true)).toEqual({
      messages: [],
      model: 'm',
      stream: true,
      stream_options: { include_usage: true },
    });
  });
});
