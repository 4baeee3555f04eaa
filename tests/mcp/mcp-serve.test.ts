/**
 * Agents as MCP tools: the official SDK's client (Client + StreamableHTTPClientTransport) calls
 * `/mcp` of the app served over real HTTP on 127.0.0.1 (as `tea-edge serve` does, worker/node/node.ts)
 * and of the built `tea-edge serve` itself: listing, calls, progress, a paused run's handle, and
 * the bearer tokens and roles of the HTTP API.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../../worker/app.js';
import { loadAgent } from '../../src/load-agent-with-scripts.js';
import { createMemoryStores } from '../../src/storage/memory-store.js';
import { startServe } from '../support/run-cli.js';

const AGENTS_DIR = path.join(import.meta.dirname, 'agents');
const agents = Object.fromEntries(
  readdirSync(AGENTS_DIR).map((file) => {
    const agent = loadAgent(readFileSync(path.join(AGENTS_DIR, file), 'utf8'), { file });
    return [agent.name, agent];
  }),
);

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function serveApp(
  options: Partial<Parameters<typeof createApp>[0]> = {},
): Promise<{ url: string; stores: ReturnType<typeof createMemoryStores> }> {
  const stores = createMemoryStores();
  const app = createApp({ agents, ...stores, ...options });
  const server: ServerType = await new Promise((resolve) => {
    const started = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(started));
  });
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, stores };
}

async function connect(url: string, token?: string): Promise<Client> {
  const client = new Client({ name: 'tea-edge-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(
    new URL(url),
    token === undefined ? {} : { requestInit: { headers: { authorization: `Bearer ${token}` } } },
  );
  await client.connect(transport);
  cleanups.push(() => client.close());
  return client;
}

type Structured = {
  run_id: string;
  status: string;
  state: Record<string, unknown>;
  interrupt?: Record<string, unknown>;
  resume?: string;
};

describe('/mcp on the app (official SDK client over HTTP)', () => {
  it('lists every agent as a tool with its input_schema, and a call returns the final state', async () => {
    const { url, stores } = await serveApp();
    const client = await connect(url);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['glossary', 'review-gate', 'whoami']);
    const glossary = tools.find((tool) => tool.name === 'glossary')!;
    expect(glossary.description).toContain('tiny glossary');
    expect(glossary.inputSchema).toMatchObject({ type: 'object', required: ['word'] });
    const result = await client.callTool({ name: 'glossary', arguments: { word: 'Cortado' } });
    expect(result.isError).toBe(false);
    const structured = result.structuredContent as Structured;
    expect(structured.status).toBe('completed');
    expect(structured.state['answer']).toBe('Cortado: espresso cut with a little warm milk');
    expect(JSON.parse((result.content as Array<{ text: string }>)[0]!.text).state.answer).toBe(
      structured.state['answer'],
    );
    // The run is a real, recorded run like one started over the HTTP API.
    expect((await stores.traceStore.getRun(structured.run_id))?.status).toBe('completed');
  });

  it('input that fails input_schema is a failed tool result, not a protocol error', async () => {
    const { url } = await serveApp();
    const client = await connect(url);
    const result = await client.callTool({ name: 'glossary', arguments: { word: 'x'.repeat(100) } });
    expect(result.isError).toBe(true);
    expect((result.structuredContent as Structured & { error: { code: string } }).error.code).toBe('INPUT_INVALID');
  });

  it('reports progress per finished node when the client asks for it', async () => {
    const { url } = await serveApp();
    const client = await connect(url);
    const progress: Array<{ progress: number; message?: string }> = [];
    const result = await client.callTool({ name: 'glossary', arguments: { word: 'demitasse' } }, undefined, {
      onprogress: (note) => progress.push(note),
    });
    expect((result.structuredContent as Structured).state['answer']).toBe('demitasse: a small cup for espresso');
    expect(progress.map((note) => note.message)).toEqual(["node 'look_up' done", "node 'polish' done"]);
    expect(progress.map((note) => note.progress)).toEqual([1, 2]);
  });

  it('a run that waits for a human answers a resumable handle, and the HTTP API resumes it', async () => {
    const { url } = await serveApp();
    const client = await connect(url);
    const result = await client.callTool({ name: 'review-gate', arguments: { who: 'Ada' } });
    const handle = result.structuredContent as Structured;
    expect(result.isError).toBe(false);
    expect(handle.status).toBe('interrupted');
    expect(handle.interrupt).toMatchObject({ kind: 'interrupt', node: 'publish' });
    expect(handle.resume).toBe(`POST /runs/${handle.run_id}/resume`);
    const pause = (handle.interrupt as { checkpoint_id: string }).checkpoint_id;
    expect((result.content as Array<{ text: string }>)[0]!.text).toContain(
      `waiting for a human (interrupt); resume it with POST /runs/${handle.run_id}/resume with the body {"checkpoint_id": "${pause}"}`,
    );
    const resumed = await fetch(new URL(String(handle.resume).slice('POST '.length), url), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ checkpoint_id: pause }),
    });
    expect(await resumed.json()).toMatchObject({ status: 'completed', state: { draft: 'Hello Ada', published: true } });
  });

  it('uses the bearer tokens and roles of the HTTP API', async () => {
    const { url } = await serveApp({ auth: { tokens: { 'user-token': 'user', 'admin-token': 'admin' } } });
    await expect(connect(url)).rejects.toThrow();
    await expect(connect(url, 'wrong-token')).rejects.toThrow();
    const asUser = await connect(url, 'user-token');
    const denied = (await asUser.callTool({ name: 'whoami', arguments: {} })).structuredContent as Structured;
    expect(JSON.stringify((denied.state['react'] as { steps: unknown[] }).steps[0])).toContain(
      'Access denied: memory.store requires role admin',
    );
    const asAdmin = await connect(url, 'admin-token');
    const allowed = (await asAdmin.callTool({ name: 'whoami', arguments: {} })).structuredContent as Structured;
    expect(JSON.stringify((allowed.state['react'] as { steps: unknown[] }).steps[0])).not.toContain('Access denied');
  });

  it('answers protocol errors as JSON-RPC errors and other methods with 405', async () => {
    const { url } = await serveApp();
    const client = await connect(url);
    await expect(client.callTool({ name: 'no-such-agent', arguments: {} })).rejects.toThrow(/no tool \(agent\) named/);
    expect((await fetch(url)).status).toBe(405);
    const notJson = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' });
    expect(await notJson.json()).toMatchObject({ error: { code: -32700 } });
  });
});

describe('/mcp on `tea-edge serve` (built CLI)', () => {
  it('the SDK client lists and calls the served agents', { timeout: 60_000 }, async () => {
    const {
      url: base,
      child,
      outcome,
    } = await startServe([
      '--port',
      '0',
      '--agents',
      AGENTS_DIR,
      '--trace-dir',
      path.join(import.meta.dirname, '../../node_modules/.cache/tea-mcp-traces'),
    ]);
    cleanups.push(async () => {
      child.kill('SIGTERM');
      await outcome;
    });
    const client = await connect(`${base}/mcp`);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('glossary');
    const result = await client.callTool({ name: 'glossary', arguments: { word: 'demitasse' } });
    expect((result.structuredContent as Structured).state['answer']).toBe('demitasse: a small cup for espresso');
  });
});
