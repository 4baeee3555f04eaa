/**
 * The MCP example: examples/mcp/mcp-react-glossary.yaml takes its ReAct tool from the
 * coffee-glossary agent served on /mcp (as `tea-edge serve --agents examples/mcp` does), and without a
 * server it ends with the tool's failure said plainly, not a crash.
 */
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { serve, type ServerType } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../worker/app.js';
import { loadAgent } from '../../src/load-agent-with-scripts.js';
import { createMemoryStores } from '../../src/storage/memory-store.js';
import { runYaml } from '../engine/helpers.js';

const EXAMPLES = path.join(import.meta.dirname, '../../examples/mcp');
const example = (name: string) => readFileSync(path.join(EXAMPLES, `${name}.yaml`), 'utf8');
let server: ServerType;
let port = 0;

beforeAll(async () => {
  const glossary = loadAgent(example('coffee-glossary'), { file: 'coffee-glossary.yaml' });
  const app = createApp({ agents: { 'coffee-glossary': glossary }, ...createMemoryStores() });
  server = await new Promise((resolve) => {
    const started = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(started));
  });
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server?.close(() => resolve())));

describe('examples/mcp/mcp-react-glossary.yaml', () => {
  it('answers from the coffee-glossary agent served over MCP', async () => {
    const yaml = example('mcp-react-glossary').replaceAll('127.0.0.1:8787', `127.0.0.1:${port}`);
    const { result } = await runYaml(yaml);
    expect(result.status).toBe('completed');
    expect(result.state['answer']).toBe('A cortado is espresso cut with a little warm milk.');
    const observation = JSON.parse(String(result.state['observation']));
    expect(observation.state).toMatchObject({ word: 'cortado', meaning: 'espresso cut with a little warm milk' });
  });

  it('with no server listening, the run completes and says the MCP server could not be reached', async () => {
    const yaml = example('mcp-react-glossary').replaceAll('127.0.0.1:8787', '127.0.0.1:9');
    const { result } = await runYaml(yaml);
    expect(result.status).toBe('completed');
    const react = result.state['react'] as { success: boolean; error: string };
    expect(react.success).toBe(false);
    expect(react.error).toContain('MCP server http://127.0.0.1:9: request failed');
    expect(result.state['answer']).toBe(react.error);
  });
});
