/**
 * The model client inside workerd (plain Miniflare, the bundled client in a module worker): it
 * streams from the mock on 127.0.0.1 through the worker's outbound fetch, maps faults to typed
 * errors after retries, and times out with workerd's timers.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const WORKER = `
import { createOpenAiClient } from ${JSON.stringify(path.join(HERE, '../../src/llm/openai-client.ts'))};
export default {
  async fetch(request, env) {
    const options = await request.json();
    const client = createOpenAiClient({ api_base: env.LLM_BASE_URL, ...options.connection }, { retryTiming: { baseDelayMs: 5, maxDelayMs: 10 } });
    const ask = { model: 'mock-model', messages: [{ role: 'user', content: 'hi' }] };
    try {
      if (options.stream) {
        const deltas = [];
        let done;
        for await (const part of client.stream(ask)) part.type === 'delta' ? deltas.push(part.content) : part.type === 'done' ? (done = part.response) : null;
        return Response.json({ deltas, done });
      }
      return Response.json({ done: await client.generate(ask) });
    } catch (error) {
      return Response.json({ error: { code: error.code, message: error.message } });
    }
  },
};
`;

let miniflare: Miniflare;
let server: MockOpenAI;

async function ask(body: Record<string, unknown>): Promise<any> {
  const response = await miniflare.dispatchFetch('http://worker.test/', { method: 'POST', body: JSON.stringify(body) });
  return response.json();
}

beforeAll(async () => {
  server = await startMockOpenAI({ chunkSize: 4, replies: ['Streaming inside workerd.'] });
  const bundle = await esbuild.build({
    stdin: { contents: WORKER, resolveDir: HERE, loader: 'js' },
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    write: false,
    logLevel: 'warning',
  });
  miniflare = new Miniflare({
    modules: true,
    script: bundle.outputFiles[0]!.text,
    compatibilityDate: '2026-05-01',
    bindings: { LLM_BASE_URL: server.url },
  });
  await miniflare.ready;
});
afterAll(async () => {
  await miniflare?.dispose();
  await server?.close();
});
beforeEach(() => {
  server.setFault();
  server.requests.length = 0;
});

describe('the model client in workerd', () => {
  it('streams through the worker’s outbound fetch', async () => {
    const result = await ask({ stream: true });
    expect(result.deltas.length).toBeGreaterThan(3);
    expect(result.done).toMatchObject({ content: 'Streaming inside workerd.', finish_reason: 'stop' });
  });

  it('retries a 503 and reports LLM_HTTP_503 after max_retries', async () => {
    server.setFault({ type: 'status', status: 503 });
    expect((await ask({ connection: { max_retries: 1 } })).error.code).toBe('LLM_HTTP_503');
    expect(server.chatRequests).toHaveLength(2);
  });

  it('times out a slow server with LLM_TIMEOUT', async () => {
    server.setFault({ type: 'delay', ms: 2_000 });
    expect((await ask({ connection: { max_retries: 0, timeout_ms: 200 } })).error.code).toBe('LLM_TIMEOUT');
  });

  it('refuses a cut stream with LLM_BAD_RESPONSE; a chunk sent twice (a repeated token) is part of the answer', async () => {
    server.setFault({ type: 'cut', afterChunks: 3 });
    expect((await ask({ stream: true })).error.code).toBe('LLM_BAD_RESPONSE');
    server.setFault({ type: 'duplicate_chunk', at: 2 });
    const repeated = await ask({ stream: true });
    expect(repeated.done.content).toBe(repeated.deltas.join(''));
    expect(repeated.done.content.length).toBeGreaterThan('Streaming inside workerd.'.length);
  });
});
