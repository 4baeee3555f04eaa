// The web demo's model-server probe in Node against real servers: the mock OpenAI-compatible
// server and a closed port. A no-cors request tells a listening server from nothing; one chat
// completion shows an HTTP 500 with its body (capped, key redacted); the start-up scan finds a
// local server and names one that runs but refuses the page. The same in Chromium, with real
// CORS, is in web-demo-outcomes.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closedPort } from '../support/closed-port.js';
import { startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.js';
import { probeChat, reachable } from '../../web-demo/probe-diagnosis.js';
import { scanLocalServers } from '../../web-demo/local-detect.js';

describe('probe diagnosis against real servers', () => {
  let mock: MockOpenAI;
  beforeAll(async () => {
    mock = await startMockOpenAI({ models: ['mock-model'] });
  });
  afterAll(async () => {
    await mock?.close();
  });

  it('tells a listening server from a closed port', async () => {
    expect(await reachable(`${mock.url}/models`)).toEqual({ up: true });
    const result = await reachable(`http://127.0.0.1:${await closedPort()}/v1/models`);
    expect(result.up).toBe(false);
  });

  it('reports a chat completion that works, and one that answers HTTP 500 with its body, capped', async () => {
    expect(await probeChat({ apiBase: mock.url, model: 'mock-model' })).toEqual({
      ok: true,
      model: 'mock-model',
      status: 200,
    });
    mock.setFault({
      type: 'status',
      status: 500,
      body: `{"error":"out of memory sk-secret-9 ${'y'.repeat(5000)}"}`,
      times: 1,
    });
    const failed = await probeChat({ apiBase: mock.url, model: 'mock-model', apiKey: 'sk-secret-9' });
    expect(failed).toMatchObject({
      ok: false,
      status: 500,
      error: `POST ${mock.url}/chat/completions answered HTTP 500`,
    });
    expect(failed.body).toContain('out of memory [redacted]');
    expect(failed.body).not.toContain('sk-secret-9');
    expect(failed.body!.length).toBeLessThan(2100);
    expect(mock.chatRequests.at(-1)?.headers.authorization).toBe('Bearer sk-secret-9');
    const down = await probeChat({ apiBase: `http://127.0.0.1:${await closedPort()}/v1` });
    expect(down.ok).toBe(false);
    expect(down.status).toBeUndefined();
    expect(down.error).toMatch(/failed/);
  });

  it('finds a local server, and one that runs but refuses the page', async () => {
    const closed = await closedPort();
    // Node has no CORS: a normal request to the "LM Studio" port is made to throw the way a browser
    // refuses it, while the no-cors request reaches the real server.
    const routed: typeof fetch = (input, init) => {
      const url = String(input);
      if (url.startsWith('http://localhost:1234/')) {
        if (init?.mode !== 'no-cors') return Promise.reject(new TypeError('Failed to fetch'));
        return fetch(url.replace('http://localhost:1234/v1', mock.url), init);
      }
      if (url.startsWith('http://localhost:11434/'))
        return fetch(url.replace('http://localhost:11434/v1', mock.url), init);
      return fetch(url.replace(/^http:\/\/localhost:\d+/, `http://127.0.0.1:${closed}`), init);
    };
    const scan = await scanLocalServers(2000, routed);
    expect(scan.found).toEqual({
      settings: { preset: 'ollama', api_base: 'http://localhost:11434/v1', model: 'mock-model', api_key: '' },
      label: 'Ollama',
    });
    expect(scan.refusing.map((preset) => preset.id)).toEqual(['lmstudio']);
  });
});
