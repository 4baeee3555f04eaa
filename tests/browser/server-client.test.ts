// The studio's server back-end client (web-demo/server-client.ts) in Node against a real
// `tea-edge serve` (worker/node/node.ts) and the mock OpenAI-compatible server: agents with their
// spec, a background run followed over SSE that survives dropped connections (each reconnection
// sends Last-Event-ID; every event arrives once, in order), history, and resuming an interrupt.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/core/events.js';
import { startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.js';
import { serve, type RunningServer } from '../../worker/node/node.js';
import { ServerClient } from '../../web-demo/server-client.js';
import { ROOT } from './support/serve-demo.js';

export const SERVER_AGENTS = path.join(ROOT, 'tests/browser/fixtures/server-agents');

describe('studio server client', () => {
  let mock: MockOpenAI;
  let server: RunningServer;

  beforeAll(async () => {
    mock = await startMockOpenAI({ models: ['mock-model'], chunkSize: 2, chunkDelayMs: 10 });
    server = await serve({
      port: 0,
      agentsDir: SERVER_AGENTS,
      traceDir: mkdtempSync(path.join(tmpdir(), 'tea-studio-server-')),
      webDemoDir: mkdtempSync(path.join(tmpdir(), 'tea-studio-empty-')),
      app: { llm: { overrides: { provider: 'openai-compatible', api_base: mock.url, model: 'mock-model' } } },
    });
  });
  afterAll(async () => {
    await server?.close();
    await mock?.close();
  });

  it('lists the agents, and one agent with its spec for the graph', async () => {
    const client = new ServerClient(server.url);
    expect(await client.health()).toBeTruthy();
    expect((await client.agents()).map((agent) => agent.name)).toEqual(['server-review', 'server-stream']);
    const agent = await client.agent('server-stream');
    expect((agent.spec as { nodes: { name: string }[] }).nodes.map((node) => node.name)).toEqual(['talk']);
    await expect(client.agent('nope')).rejects.toMatchObject({ status: 404, code: 'NOT_FOUND' });
  });

  it('follows a run over SSE across dropped connections, each event once and in order', async () => {
    mock.setReplies([Array.from({ length: 80 }, (_, index) => `t${index}`).join(' ')]);
    // Every event stream is cut after 5 events; the client must reconnect from the last seq.
    const lastEventIds: (string | null)[] = [];
    const cutting: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      const headers = new Headers(init?.headers);
      if (!(headers.get('accept') ?? '').includes('text/event-stream')) return response;
      lastEventIds.push(headers.get('last-event-id'));
      return new Response(cutAfter(response.body!, 5), { status: response.status, headers: response.headers });
    };
    const client = new ServerClient(server.url, undefined, cutting);
    const runId = await client.start('server-stream', {});
    const seen: AgentEvent[] = [];
    let reconnects = 0;
    await client.follow(runId, (event) => seen.push(event), { retryDelayMs: 10, onReconnect: () => reconnects++ });
    const seqs = seen.map((event) => event.seq);
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, index) => index + 1));
    expect(seen.at(-1)?.type).toBe('done');
    expect(reconnects).toBeGreaterThan(2);
    expect(lastEventIds[0]).toBeNull();
    expect(lastEventIds.slice(1).every((id) => id !== null && Number(id) > 0)).toBe(true);
    // The same events as the server stored.
    expect((await client.events(runId)).map((event) => event.seq)).toEqual(seqs);
    expect((await client.runs()).some((run) => run.run_id === runId && run.status === 'completed')).toBe(true);
  });

  it('resumes an interrupted run and follows it to the end', async () => {
    const client = new ServerClient(server.url);
    const runId = await client.start('server-review', {});
    const first: AgentEvent[] = [];
    const last = await client.follow(runId, (event) => first.push(event));
    expect(first.at(-1)?.data).toMatchObject({ status: 'interrupted' });
    await client.resume(runId, {});
    const rest: AgentEvent[] = [];
    await client.follow(runId, (event) => rest.push(event), { after: last });
    expect(rest[0]!.seq).toBe(last + 1);
    expect(rest.at(-1)?.data).toMatchObject({ status: 'completed' });
  });

  it('starts a run from a completed node with an edited state (POST /runs/:id/fork, then resume)', async () => {
    mock.setReplies(['Assam']);
    const client = new ServerClient(server.url);
    const parent = await client.start('server-stream', {});
    await client.follow(parent, () => undefined);
    const before = mock.chatRequests.length;
    const child = await client.fork(parent, 'talk', { reply: { content: 'Edited by hand' } });
    await client.resume(child, {});
    const events: AgentEvent[] = [];
    await client.follow(child, (event) => events.push(event));
    expect(events.at(-1)?.data).toMatchObject({ status: 'completed', state: { reply: { content: 'Edited by hand' } } });
    expect(events.some((event) => event.type === 'llm_request')).toBe(false);
    expect(mock.chatRequests.length).toBe(before);
    // The history keeps the link after the forked run ended (its records carry it).
    expect((await client.runs()).find((run) => run.run_id === child)).toMatchObject({
      status: 'completed',
      parent_run_id: parent,
      forked_after: 'talk',
    });
    await expect(client.fork(parent, 'nope', {})).rejects.toMatchObject({ status: 400, code: 'INVALID_PARAMS' });
    await expect(client.fork('no-such-run', 'talk', {})).rejects.toMatchObject({ status: 404 });
  });
});

/** A body that ends (as if the connection dropped) after `count` SSE events. */
function cutAfter(body: ReadableStream<Uint8Array>, count: number): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let events = 0;
  return new ReadableStream({
    async pull(controller) {
      const { value, done } = await reader.read();
      if (done) return controller.close();
      controller.enqueue(value);
      events += (decoder.decode(value, { stream: true }).match(/\nid: /g) ?? []).length;
      if (events >= count) {
        await reader.cancel();
        controller.close();
      }
    },
    cancel: () => reader.cancel(),
  });
}
