/**
 * `tea-edge validate --online` lists the agent's MCP servers (an official-SDK server on
 * 127.0.0.1): ok when every allow-listed tool exists, UNKNOWN_TOOL (exit 2) naming the missing
 * tool or the unreachable server otherwise; without --online the server is never contacted.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.js';
import { startMcpTestServer, tool, type McpTestServer } from '../support/mcp-test-server.js';
import { mcpUserAgent } from './mcp-agents.js';

let server: McpTestServer;
const folder = mkdtempSync(path.join(tmpdir(), 'tea-mcp-validate-'));

beforeAll(async () => {
  server = await startMcpTestServer({ tools: [tool('lookup', 'Look up.')], call: () => ({ content: [] }) });
});
afterAll(async () => server?.close());

function agentFile(name: string, text: string): string {
  const file = path.join(folder, name);
  writeFileSync(file, text);
  return file;
}

describe('validate --online', () => {
  it('ok when the allow-listed tools exist; offline validation never contacts the server', {
    timeout: 60_000,
  }, async () => {
    const file = agentFile('good.yaml', mcpUserAgent(server.url, server.origin));
    const offline = await runCli(['validate', file]);
    expect(offline.code).toBe(0);
    expect(server.headers).toHaveLength(0);
    const online = await runCli(['validate', '--online', file]);
    expect(online.stderr).toBe('');
    expect(online.code).toBe(0);
    expect(online.stdout.trim()).toBe('ok');
    expect(server.counts['tools/list']).toBe(1);
  });

  it('reports a missing tool and an unreachable server as UNKNOWN_TOOL, exit 2', { timeout: 60_000 }, async () => {
    const missing = agentFile(
      'missing.yaml',
      mcpUserAgent(server.url, server.origin).replace('tools: [lookup]', 'tools: [lookup, translate]'),
    );
    const result = await runCli(['validate', '--online', '--json', missing]);
    expect(result.code).toBe(2);
    const report = JSON.parse(result.stdout) as { ok: boolean; errors: Array<{ code: string; message: string }> };
    expect(report.ok).toBe(false);
    expect(report.errors).toEqual([
      expect.objectContaining({ code: 'UNKNOWN_TOOL', message: "MCP server 'demo' does not offer 'translate'" }),
    ]);
    const down = agentFile('down.yaml', mcpUserAgent('http://127.0.0.1:9/mcp', 'http://127.0.0.1:9'));
    const unreachable = await runCli(['validate', '--online', down]);
    expect(unreachable.code).toBe(2);
    expect(unreachable.stderr).toMatch(/UNKNOWN_TOOL MCP server http:\/\/127\.0\.0\.1:9: request failed.*\(--online\)/);
  });

  it('--secret gives a server its {secret} header from the environment; without it the listing is refused', {
    timeout: 60_000,
  }, async () => {
    const guarded = await startMcpTestServer({
      tools: [tool('lookup', 'Look up.')],
      call: () => ({ content: [] }),
      requireHeader: ['authorization', 'Bearer tok-validate-77'],
    });
    try {
      const text = mcpUserAgent(guarded.url, guarded.origin).replace(
        'tools: [lookup] }',
        'tools: [lookup], headers: { authorization: { secret: DOCS_TOKEN, prefix: "Bearer " } } }',
      );
      const file = agentFile('guarded.yaml', text);
      const without = await runCli(['validate', '--online', file]);
      expect(without.code).toBe(2);
      expect(without.stderr).toContain('DOCS_TOKEN');
      const withSecret = await runCli(['validate', '--online', '--secret', 'DOCS_TOKEN', file], {
        DOCS_TOKEN: 'tok-validate-77',
      });
      expect(withSecret.stderr).toBe('');
      expect(withSecret.code).toBe(0);
      expect(guarded.headers.at(-1)?.authorization).toBe('Bearer tok-validate-77');
      const unset = await runCli(['validate', '--online', '--secret', 'NOT_SET_HERE', file]);
      expect(unset.code).toBe(2);
      expect(unset.stderr).toContain('NOT_SET_HERE is not set');
      expect((await runCli(['validate', '--secret', 'DOCS_TOKEN', file], { DOCS_TOKEN: 'x' })).stderr).toContain(
        '--secret is for --online',
      );
    } finally {
      await guarded.close();
    }
  });
});
