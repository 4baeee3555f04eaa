/**
 * Fork and resume access, forked-state validation and the body depth cap (issue 24 causes 7, 8)
 * on Node: the app answering in the request (memory stores), and `serve` over real HTTP (file
 * stores, runs in the process), where a viewer also tries to read a host secret through a cut
 * quote (cause 3). The Worker's Durable Objects: run-access-workerd.test.ts.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { loadAgent } from '../../src/load-agent-with-scripts.js';
import { createMemoryStores } from '../../src/storage/memory-store.js';
import type { CheckpointStore } from '../../src/core/trace-store.js';
import { createApp } from '../../worker/app.js';
import { serve, type RunningServer } from '../../worker/node/node.js';
import { jsonOrUndefined } from './miniflare-harness.js';
import { attackDeepBodies, attackForkAndResume, TOKENS, type Send } from './run-access-attack.js';
import { attackQuotedSecret, QUOTED_SECRET } from './quoted-secret-attack.js';

const payout = loadAgent(readFileSync(path.join(import.meta.dirname, 'agents/payout.yaml'), 'utf8'), {
  file: 'payout.yaml',
});

function sender(fetcher: (path: string, init: RequestInit) => Promise<Response>): Send {
  return async (method, route, body, token) => {
    const response = await fetcher(route, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body !== undefined ? { body } : {}),
    });
    const text = await response.text();
    return { status: response.status, json: jsonOrUndefined(text), text };
  };
}

describe('the app in the request (memory stores)', () => {
  const stores = createMemoryStores();
  const app = createApp({ agents: { payout }, ...stores, auth: { tokens: TOKENS } });
  const send = sender(async (route, init) => app.request(route, init));

  it("a viewer cannot fork or resume an admin's run; forked state is held to input_schema", async () => {
    await attackForkAndResume(send);
  });

  it('bodies nested past the cap are 400 on start, fork and /mcp', async () => {
    await attackDeepBodies(send);
  });

  it('a fork whose checkpoint cannot be written leaves no run listed', async () => {
    const failing: CheckpointStore = {
      ...stores.checkpointStore,
      save: async () => Promise.reject(new Error('disk full')),
    };
    const broken = createApp({
      agents: { payout },
      traceStore: stores.traceStore,
      checkpointStore: failing,
      auth: { tokens: TOKENS },
    });
    const started = await send(
      'POST',
      '/agents/payout/runs',
      JSON.stringify({ input: { amount: 3 } }),
      'admin-token-1234',
    );
    const before = (await stores.traceStore.listRuns({ limit: 1000 })).runs.length;
    const forked = await broken.request(`/runs/${started.json.run_id}/fork`, {
      method: 'POST',
      headers: { authorization: 'Bearer admin-token-1234', 'content-type': 'application/json' },
      body: JSON.stringify({ node: 'approve', state: { amount: 3 } }),
    });
    expect(forked.status).toBeGreaterThanOrEqual(500);
    expect((await stores.traceStore.listRuns({ limit: 1000 })).runs.length).toBe(before);
  });

  it('without tokens nobody is told apart: fork and resume are open, runs have no owner', async () => {
    const open = createApp({ agents: { payout }, ...createMemoryStores() });
    const started = await (
      await open.request('/agents/payout/runs', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"input":{"amount":2}}',
      })
    ).json();
    expect((await (await open.request(`/runs/${started.run_id}`)).json()).owner).toBeUndefined();
    const resumed = await open.request(`/runs/${started.run_id}/resume`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect((await resumed.json()).status).toBe('completed');
  });

  it('a host names its own admin roles: then `admin` is not one', async () => {
    const custom = createApp({
      agents: { payout },
      ...createMemoryStores(),
      auth: { tokens: { ...TOKENS, 'ops-token-9': 'ops' }, adminRoles: ['ops'] },
    });
    const customSend = sender(async (route, init) => custom.request(route, init));
    const started = await customSend('POST', '/agents/payout/runs', '{"input":{"amount":2}}', 'viewer-token-5678');
    expect((await customSend('POST', `/runs/${started.json.run_id}/resume`, '{}', 'admin-token-1234')).status).toBe(
      403,
    );
    expect((await customSend('POST', `/runs/${started.json.run_id}/resume`, '{}', 'ops-token-9')).json.status).toBe(
      'completed',
    );
  });
});

describe('serve (Node, file stores, runs in the process)', () => {
  let directory: string;
  let server: RunningServer;
  beforeAll(async () => {
    directory = await mkdtemp(path.join(tmpdir(), 'tea-edge-access-'));
    server = await serve({
      port: 0,
      agentsDir: path.join(import.meta.dirname, 'agents'),
      traceDir: path.join(directory, 'traces'),
      app: { auth: { tokens: TOKENS }, secrets: { SEARCH_TOKEN: QUOTED_SECRET } },
    });
  });
  afterAll(async () => {
    await server?.close();
    await rm(directory, { recursive: true, force: true });
  });
  const send: Send = (method, route, body, token) =>
    sender((target, init) => fetch(`${server.url}${target}`, init))(method, route, body, token);

  it("a viewer cannot fork or resume an admin's run; forked state is held to input_schema", async () => {
    await attackForkAndResume(send);
  });

  it('bodies nested past the cap are 400 on start, fork and /mcp', async () => {
    await attackDeepBodies(send);
  });

  it('a viewer choosing where a quoted value is cut reads no part of a host secret', async () => {
    await attackQuotedSecret(send, 'viewer-token-5678');
  }, 60_000);
});

describe('the access check on odd run ids', () => {
  it('a malformed percent-encoding or an unknown run is 404, not 500', async () => {
    const app = createApp({ agents: { payout }, ...createMemoryStores(), auth: { tokens: TOKENS } });
    const cases: Array<[string, string]> = [
      ['/runs/%E0%A4%A/resume', '{}'],
      ['/runs/never-was/resume', '{}'],
      ['/runs/never-was/fork', '{"node":"guard","state":{"amount":1}}'],
    ];
    for (const [route, body] of cases) {
      const answer = await app.request(route, {
        method: 'POST',
        headers: { authorization: 'Bearer viewer-token-5678', 'content-type': 'application/json' },
        body,
      });
      expect({ route, status: answer.status }).toEqual({ route, status: 404 });
    }
  });
});
