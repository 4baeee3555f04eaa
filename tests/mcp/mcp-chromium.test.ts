/**
 * MCP tools from an agent running in headless Chromium (the engine bundled into a page with a
 * strict CSP, so no code generation): the page's ReAct agent calls an official-SDK MCP server on
 * 127.0.0.1 (which answers CORS, as a server meant for browsers must), with the same result as
 * the same agent in Node.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import * as esbuild from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error plain ESM build helper without types
import { baseOptions } from '../../build/shared.mjs';
import { runYaml } from '../engine/helpers.js';
import { CHROMIUM, runInChromiumPage } from '../support/chromium-page.js';
import { startMcpTestServer, tool, type McpTestServer } from '../support/mcp-test-server.js';
import { mcpUserAgent } from './mcp-agents.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
let server: McpTestServer;

beforeAll(async () => {
  server = await startMcpTestServer({
    cors: true,
    tools: [tool('lookup', 'Look up a coffee word.')],
    call: (_name, args) => ({
      content: [{ type: 'text', text: `${String(args['q'])}: espresso with a little warm milk` }],
    }),
  });
});
afterAll(async () => server?.close());

describe.skipIf(!existsSync(CHROMIUM))('MCP tools in Chromium', () => {
  it('a ReAct agent in the page calls the MCP server; same state as in Node', { timeout: 120_000 }, async () => {
    const yaml = mcpUserAgent(server.url, server.origin);
    const entry = `import { loadAgent, runAgent } from './src/index.ts';
const run = runAgent(loadAgent(${JSON.stringify(yaml)}, { file: 'mcp-user.yaml' }), {});
for await (const event of run) void event;
const result = await run.result;
globalThis.mcpResult = { status: result.status, react: result.state.react };`;
    const bundle = await esbuild.build(
      baseOptions({
        stdin: { contents: entry, resolveDir: ROOT, sourcefile: 'mcp-page.ts', loader: 'ts' },
        platform: 'browser',
        write: false,
      }),
    );
    const { value, errors } = await runInChromiumPage(bundle.outputFiles![0]!.text, 'mcpResult');
    expect(errors).toEqual([]);
    const inPage = value as { status: string; react: { final_answer: string; steps: Array<{ observation: string }> } };
    expect(inPage.status).toBe('completed');
    expect(inPage.react.steps[0]!.observation).toBe('cortado: espresso with a little warm milk');
    const { result } = await runYaml(yaml);
    const inNode = result.state['react'] as typeof inPage.react;
    expect(inPage.react.steps.map((step) => step.observation)).toEqual(inNode.steps.map((step) => step.observation));
    expect(inPage.react.final_answer).toBe(inNode.final_answer);
    expect(server.counts['tools/call']).toBe(2);
  });
});
