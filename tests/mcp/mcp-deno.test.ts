/**
 * MCP under the `deno` binary (worker/deno/deno.ts bundled with MCP agents, as the build bundles it):
 * an agent served by Deno calls an official-SDK MCP server on 127.0.0.1, and the official SDK
 * client calls Deno's `/mcp`.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMcpTestServer, tool, type McpTestServer } from '../support/mcp-test-server.js';
import { mcpUserAgent } from './mcp-agents.js';
import { startDenoServer, stopDenoServer, type DenoServer } from '../support/deno-server.js';

const root = path.resolve(import.meta.dirname, '../..');
const directory = mkdtempSync(path.join(tmpdir(), 'tea-mcp-deno-'));
let server: McpTestServer;
let deno: DenoServer | undefined;
let base = '';

beforeAll(async () => {
  server = await startMcpTestServer({
    tools: [tool('lookup', 'Look up a coffee word.')],
    call: (_name, args) => ({
      content: [{ type: 'text', text: `${String(args['q'])}: espresso with a little warm milk` }],
    }),
  });
  const agentsDir = path.join(directory, 'agents');
  mkdirSync(agentsDir);
  writeFileSync(path.join(agentsDir, 'mcp-user.yaml'), mcpUserAgent(server.url, server.origin));
  writeFileSync(
    path.join(agentsDir, 'glossary.yaml'),
    readFileSync(path.join(import.meta.dirname, 'agents/glossary.yaml'), 'utf8'),
  );
  const { bundleWorker } = await import(pathToFileURL(path.join(root, 'build/targets/30-worker.mjs')).href);
  const { text } = (await bundleWorker({ root, entry: 'worker/deno/deno.ts', agentsDir, minify: true })) as {
    text: string;
  };
  const bundle = path.join(directory, 'deno-worker.js');
  writeFileSync(bundle, text);
  deno = await startDenoServer(bundle, { KV_PATH: path.join(directory, 'traces.sqlite') });
  base = deno.url;
}, 120_000);

afterAll(async () => {
  if (deno !== undefined) await stopDenoServer(deno, 'SIGKILL');
  await server?.close();
  rmSync(directory, { recursive: true, force: true });
});

describe('MCP under Deno', () => {
  it('an agent served by Deno calls a tool of an official-SDK MCP server', async () => {
    const response = await fetch(`${base}/agents/mcp-user/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"input": {}}',
    });
    const body = (await response.json()) as {
      status: string;
      state: { react: { steps: Array<{ observation: string }> } };
    };
    expect(body.status).toBe('completed');
    expect(body.state.react.steps[0]!.observation).toBe('cortado: espresso with a little warm milk');
  });

  it("the official SDK client lists and calls Deno's agents on /mcp", async () => {
    const client = new Client({ name: 'tea-edge-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
    try {
      expect((await client.listTools()).tools.map((entry) => entry.name).sort()).toEqual(['glossary', 'mcp-user']);
      const result = await client.callTool({ name: 'glossary', arguments: { word: 'cortado' } });
      expect((result.structuredContent as { state: Record<string, unknown> }).state['answer']).toBe(
        'cortado: espresso cut with a little warm milk',
      );
    } finally {
      await client.close();
    }
  });
});
