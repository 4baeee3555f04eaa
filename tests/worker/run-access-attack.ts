/**
 * The attacks of issue 24 causes 7 and 8 on fork and resume, as one scenario every host runs
 * (the app in the request, `serve` over HTTP, the Worker's Durable Objects in Miniflare, Deno):
 * a viewer forking or resuming an admin's run, a fork past the guard node with a state the
 * agent's input_schema refuses, and bodies nested far past the depth cap. The host serves the
 * test agent `payout` (tests/worker/agents/payout.yaml) with the tokens of TOKENS.
 */
import { expect } from 'vitest';

export const TOKENS = { 'admin-token-1234': 'admin', 'viewer-token-5678': 'viewer', 'viewer-token-other': 'viewer' };
export const API_TOKENS = Object.entries(TOKENS)
  .map(([token, role]) => `${token}:${role}`)
  .join(',');

export type Send = (
  method: string,
  path: string,
  body: string | undefined,
  token: string,
) => Promise<{ status: number; json: any; text: string }>;

const ADMIN = 'admin-token-1234';
const VIEWER = 'viewer-token-5678';
const OTHER_VIEWER = 'viewer-token-other';

/** `[` × depth then `]` × depth: a value nested `depth` levels deep, as text. */
export function deepJson(depth: number): string {
  return '['.repeat(depth) + ']'.repeat(depth);
}

async function runIds(send: Send): Promise<string[]> {
  const page = await send('GET', '/runs?agent=payout&limit=1000', undefined, ADMIN);
  expect(page.status).toBe(200);
  return (page.json.runs as Array<{ run_id: string }>).map((run) => run.run_id).sort();
}

export async function attackForkAndResume(send: Send): Promise<void> {
  const started = await send('POST', '/agents/payout/runs', JSON.stringify({ input: { amount: 40 } }), ADMIN);
  expect(started.json).toMatchObject({ status: 'interrupted', state: { amount: 40, checked: true, approved: true } });
  const runId = started.json.run_id as string;
  const record = await send('GET', `/runs/${runId}`, undefined, ADMIN);
  expect(record.json.owner).toEqual({ role: 'admin', caller: expect.stringMatching(/^[0-9a-f]{16}$/) });
  expect(JSON.stringify(record.json)).not.toContain(ADMIN);
  const before = await runIds(send);

  // A viewer may neither fork nor resume the admin's run: 403, and nothing is written.
  const viewerFork = await send(
    'POST',
    `/runs/${runId}/fork`,
    JSON.stringify({ node: 'guard', state: { amount: 5000, checked: true } }),
    VIEWER,
  );
  expect({ status: viewerFork.status, code: viewerFork.json.error.code }).toEqual({ status: 403, code: 'FORBIDDEN' });
  const viewerResume = await send('POST', `/runs/${runId}/resume`, '{}', VIEWER);
  expect({ status: viewerResume.status, code: viewerResume.json.error.code }).toEqual({
    status: 403,
    code: 'FORBIDDEN',
  });
  expect((await send('GET', `/runs/${runId}`, undefined, ADMIN)).json.status).toBe('interrupted');
  expect(await runIds(send)).toEqual(before);

  // Even the owner cannot fork past the guard with what input_schema refuses: 400, nothing written.
  for (const state of [{ amount: 5000, checked: true }, { amount: '50', checked: true }, { checked: true }]) {
    const refused = await send('POST', `/runs/${runId}/fork`, JSON.stringify({ node: 'guard', state }), ADMIN);
    expect({ state, status: refused.status, code: refused.json.error.code }).toEqual({
      state,
      status: 400,
      code: 'INPUT_INVALID',
    });
  }
  // A state nested far past the depth cap: 400 with a typed error, and no orphan run listed.
  const deep = await send(
    'POST',
    `/runs/${runId}/fork`,
    `{"node":"guard","state":{"amount":5,"x":${deepJson(100_000)}}}`,
    ADMIN,
  );
  expect({ status: deep.status, code: deep.json.error.code }).toEqual({ status: 400, code: 'INVALID_PARAMS' });
  expect(await runIds(send)).toEqual(before);

  // A valid fork by the owner works, is owned by it, and resumes.
  const forked = await send(
    'POST',
    `/runs/${runId}/fork`,
    JSON.stringify({ node: 'approve', state: { amount: 60, checked: true, approved: true } }),
    ADMIN,
  );
  expect(forked.status).toBe(201);
  const forkId = forked.json.run_id as string;
  expect((await send('GET', `/runs/${forkId}`, undefined, ADMIN)).json.owner).toEqual(record.json.owner);
  expect((await send('POST', `/runs/${forkId}/resume`, '{}', VIEWER)).status).toBe(403);
  expect((await send('POST', `/runs/${forkId}/resume`, '{}', ADMIN)).json).toMatchObject({
    status: 'completed',
    state: { paid: 60 },
  });

  // Nor resume it with a state_update the schema refuses: 400, and the run stays paused.
  const badUpdate = await send(
    'POST',
    `/runs/${runId}/resume`,
    JSON.stringify({ state_update: { amount: 5000 } }),
    ADMIN,
  );
  expect({ status: badUpdate.status, code: badUpdate.json.error?.code }).toEqual({
    status: 400,
    code: 'INPUT_INVALID',
  });
  expect((await send('GET', `/runs/${runId}`, undefined, ADMIN)).json.status).toBe('interrupted');
  expect((await send('POST', `/runs/${runId}/resume`, '{}', ADMIN)).json).toMatchObject({
    status: 'completed',
    state: { paid: 40 },
  });

  // A viewer's own run: another viewer token (same role) is refused; the owner and an admin are not.
  const own = await send('POST', '/agents/payout/runs', JSON.stringify({ input: { amount: 7 } }), VIEWER);
  expect(own.json.status).toBe('interrupted');
  expect((await send('POST', `/runs/${own.json.run_id}/resume`, '{}', OTHER_VIEWER)).status).toBe(403);
  const ownFork = await send(
    'POST',
    `/runs/${own.json.run_id}/fork`,
    JSON.stringify({ node: 'approve', state: { amount: 8 } }),
    VIEWER,
  );
  expect(ownFork.status).toBe(201);
  expect((await send('POST', `/runs/${own.json.run_id}/resume`, '{}', VIEWER)).json).toMatchObject({
    status: 'completed',
    state: { paid: 7 },
  });
  expect((await send('POST', `/runs/${ownFork.json.run_id}/resume`, '{}', ADMIN)).json).toMatchObject({
    status: 'completed',
    state: { paid: 8 },
  });
}

/** A start and an MCP call with bodies nested past the cap: 400 with a typed error, never a 500. */
export async function attackDeepBodies(send: Send): Promise<void> {
  const start = await send('POST', '/agents/payout/runs', `{"input":{"amount":5,"x":${deepJson(100_000)}}}`, ADMIN);
  expect({ status: start.status, code: start.json.error.code }).toEqual({ status: 400, code: 'INVALID_PARAMS' });
  const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'payout', arguments: {} } };
  const text = JSON.stringify(call).replace('"arguments":{}', `"arguments":{"amount":5,"x":${deepJson(200_000)}}`);
  const mcp = await send('POST', '/mcp', text, ADMIN);
  expect(mcp.status).toBe(400);
  expect(mcp.json.error).toMatchObject({ code: -32700, message: expect.stringContaining('at most') });
  // Just under the cap, the engine answers with its own state depth check (no 500 either).
  const nested = await send('POST', '/agents/payout/runs', `{"input":{"amount":5,"x":${deepJson(129)}}}`, ADMIN);
  expect({ status: nested.status, code: nested.json.error?.code }).toEqual({ status: 400, code: 'STATE_INVALID' });
}
