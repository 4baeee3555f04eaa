/**
 * MCP in workerd (the real worker bundle in Miniflare, where code generation is refused):
 * - an agent in the worker takes a ReAct tool from an official-SDK MCP server on 127.0.0.1;
 * - the official SDK client calls the worker's `/mcp` (through Miniflare's dispatchFetch).
 * The agents are written to a temporary folder with the server's port, then bundled as the
 * production build bundles examples/.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, packageRoot, startWorker } from '../worker/miniflare-harness.js';
import { startMcpTestServer, tool, type McpTestServer } from '../support/mcp-test-server.js';
import { mcpUserAgent } from './mcp-agents.js';

const root = packageRoot();
let server: McpTestServer;
let worker: Miniflare;

beforeAll(async () => {
  server = await startMcpTestServer({
    tools: [tool('lookup', 'Look up a coffee word.')],
    call: (_name, args) => ({
      content: [{ type: 'text', text: `${String(args['q'])}: espresso with a little warm milk` }],
    }),
  });
  const agentsDir = mkdtempSync(path.join(tmpdir(), 'tea-mcp-worker-'));
  writeFileSync(path.join(agentsDir, 'mcp-user.yaml'), mcpUserAgent(server.url, server.origin));
  writeFileSync(
    path.join(agentsDir, 'glossary.yaml'),
    readFileSync(path.join(import.meta.dirname, 'agents/glossary.yaml'), 'utf8'),
  );
  const { bundleWorker } = await import(pathToFileURL(path.join(root, 'build/targets/30-worker.mjs')).href);
  const { text } = (await bundleWorker({
    root,
    entry: 'worker/cloudflare/cloudflare.ts',
    agentsDir,
    minify: true,
  })) as { text: string };
  worker = await startWorker(text);
}, 120_000);

afterAll(async () => {
  await worker?.dispose();
  await server?.close();
});

describe('MCP in workerd (Miniflare)', () => {
  it('an agent in the worker calls a tool of an official-SDK MCP server', async () => {
    const response = await call(worker, 'POST', '/agents/mcp-user/runs', { input: {} });
    expect(response.status).toBe(200);
    const react = response.json.state.react as { final_answer: string; steps: Array<{ observation: string }> };
    expect(react.steps[0]!.observation).toBe('cortado: espresso with a little warm milk');
    expect(react.final_answer).toBe('found it');
    expect(server.counts).toMatchObject({ 'tools/list': 1, 'tools/call': 1 });
  });

  it("the official SDK client lists and calls the worker's agents on /mcp", async () => {
    const client = new Client({ name: 'tea-edge-test', version: '1.0.0' });
    const dispatch = ((input: string | URL | Request, init?: RequestInit) =>
      worker.dispatchFetch(
        String(input instanceof Request ? input.url : input),
        init as never,
      )) as unknown as typeof fetch;
    await client.connect(new StreamableHTTPClientTransport(new URL('http://worker.test/mcp'), { fetch: dispatch }));
    try {
      const { tools } = await client.listTools();
      expect(tools.map((entry) => entry.name).sort()).toEqual(['glossary', 'mcp-user']);
      const progress: string[] = [];
      const result = await client.callTool({ name: 'glossary', arguments: { word: 'demitasse' } }, undefined, {
        onprogress: (note) => progress.push(String(note.message)),
      });
      expect((result.structuredContent as { state: Record<string, unknown> }).state['answer']).toBe(
        'demitasse: a small cup for espresso',
      );
      expect(progress).toEqual(["node 'look_up' done", "node 'polish' done"]);
    } finally {
      await client.close();
    }
  });
});
