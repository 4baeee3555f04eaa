/**
 * Issue 24 cause 6 in workerd: the real worker bundle in Miniflare runs an agent whose MCP client
 * calls an HTTP MCP server on 127.0.0.1 that echoes the host secret (given as AGENT_SECRETS), and
 * whose tool loop then asks a model server on 127.0.0.1 that records each body
 * (tests/support/mcp-echo-agent.ts, shared with the Node, Deno and Chromium tests). No request
 * carries the secret or any prefix of it of two characters or more.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, packageRoot, startWorker } from '../worker/miniflare-harness.js';
import {
  ECHO_REDACTED,
  ECHO_SECRET,
  echoOutcome,
  startEchoServers,
  type EchoServers,
} from '../support/mcp-echo-agent.js';

const root = packageRoot();
let servers: EchoServers;
let worker: Miniflare;
let agentsDir: string;

beforeAll(async () => {
  servers = await startEchoServers();
  agentsDir = mkdtempSync(path.join(tmpdir(), 'tea-mcp-echo-worker-'));
  writeFileSync(path.join(agentsDir, 'echo.yaml'), servers.agent);
  const { bundleWorker } = await import(pathToFileURL(path.join(root, 'build/targets/30-worker.mjs')).href);
  const { text } = (await bundleWorker({
    root,
    entry: 'worker/cloudflare/cloudflare.ts',
    agentsDir,
    minify: true,
  })) as { text: string };
  worker = await startWorker(text, { bindings: { AGENT_SECRETS: 'demo_token', demo_token: ECHO_SECRET } });
}, 120_000);

afterAll(async () => {
  await worker?.dispose();
  await servers?.close();
  rmSync(agentsDir, { recursive: true, force: true });
});

describe('an MCP echo of a secret, in workerd (Miniflare)', () => {
  it('the next model request carries [REDACTED]; the model server never receives the secret or a prefix of it', async () => {
    const response = await call(worker, 'POST', '/agents/echo/runs', { input: { goal: 'look it up' } });
    expect(response.status, response.text).toBe(200);
    expect(response.json.status).toBe('completed');
    expect(response.text).not.toContain(ECHO_SECRET);
    expect(echoOutcome(servers)).toEqual(ECHO_REDACTED);
  });
});
