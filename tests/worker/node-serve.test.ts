/**
 * worker/node/node.ts: the same app on Node with @hono/node-server and the file-directory stores, the
 * web demo's static files at `/` (public even when tokens are configured), over real HTTP.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve, type RunningServer } from '../../worker/node/node.js';
import { startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.js';

let directory: string;
let server: RunningServer;
let mocked: RunningServer;
let mock: MockOpenAI;

beforeAll(async () => {
  directory = await mkdtemp(path.join(tmpdir(), 'tea-edge-node-'));
  const webDemo = path.join(directory, 'web');
  await import('node:fs/promises').then(({ mkdir }) => mkdir(webDemo));
  await writeFile(path.join(webDemo, 'index.html'), '<!doctype html><title>tea-edge demo</title>');
  server = await serve({
    port: 0,
    agentsDir: path.join(import.meta.dirname, 'agents'),
    traceDir: path.join(directory, 'traces'),
    webDemoDir: webDemo,
    app: { auth: { tokens: { 'node-token': 'admin' } } },
  });
  mock = await startMockOpenAI({ replies: ['Slow answer.'] });
  mocked = await serve({
    port: 0,
    agentsDir: path.join(import.meta.dirname, 'agents'),
    traceDir: path.join(directory, 'traces-mocked'),
    app: { llm: { overrides: { api_base: mock.url, model: 'mock-model' } }, sseHeartbeatMs: 100 },
  });
});

afterAll(async () => {
  await server?.close();
  await mocked?.close();
  await mock?.close();
  await rm(directory, { recursive: true, force: true });
});

const auth = { authorization: 'Bearer node-token', 'content-type': 'application/json' };

describe('Node host (worker/node/node.ts)', () => {
  it('serves the web demo at / without a token, and the API with one', async () => {
    const page = await fetch(`${server.url}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('tea-edge demo');
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
    expect((await fetch(`${server.url}/agents`)).status).toBe(401);
    const agents = (await (await fetch(`${server.url}/agents`, { headers: auth })).json()) as Array<{ name: string }>;
    expect(agents.map((agent) => agent.name)).toContain('counter');
  });

  it('runs, pauses and resumes over the file-directory stores; streams SSE', async () => {
    const started = (await (
      await fetch(`${server.url}/agents/counter/runs`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ input: { count: 1 } }),
      })
    ).json()) as any;
    expect(started.status).toBe('interrupted');
    const resumed = (await (
      await fetch(`${server.url}/runs/${started.run_id}/resume`, { method: 'POST', headers: auth, body: '{}' })
    ).json()) as any;
    expect(resumed.stop_reason).toBe('interrupt_after');
    const record = (await (await fetch(`${server.url}/runs/${started.run_id}`, { headers: auth })).json()) as any;
    expect(record.status).toBe('interrupted');

    const stream = await fetch(`${server.url}/agents/greeter/runs`, {
      method: 'POST',
      headers: { ...auth, accept: 'text/event-stream' },
      body: '{"input":{"name":"Node"}}',
    });
    expect(stream.headers.get('content-type')).toContain('text/event-stream');
    const text = await stream.text();
    expect(text.indexOf('event: run_start')).toBeLessThan(text.indexOf('event: answer_chunk'));
    expect(text.trim().split('\n\n').at(-1)).toContain('event: done');
  });

  it('a client that asked (?cancel_on_disconnect=1) and disconnects mid-stream cancels the run and its model request', async () => {
    mock.setFault({ type: 'delay', ms: 20_000 });
    const controller = new AbortController();
    const response = await fetch(`${mocked.url}/agents/asker/runs?cancel_on_disconnect=1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ input: { question: 'slow?' } }),
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes('event: llm_request')) text += decoder.decode((await reader.read()).value, { stream: true });
    const runId = /"run_id":"([^"]+)"/.exec(text)![1]!;
    controller.abort();
    let status: string | undefined;
    for (let attempt = 0; attempt < 100 && status !== 'cancelled'; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = ((await (await fetch(`${mocked.url}/runs/${runId}`)).json()) as { status?: string }).status;
    }
    expect(status).toBe('cancelled');
    let aborted = mock.chatRequests.at(-1)?.aborted;
    for (let attempt = 0; attempt < 50 && aborted !== true; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      aborted = mock.chatRequests.at(-1)?.aborted;
    }
    expect(aborted).toBe(true);
    mock.setFault();
  });
});
