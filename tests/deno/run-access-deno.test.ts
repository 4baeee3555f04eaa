/**
 * Fork and resume access, forked-state validation and the body depth cap (issue 24 causes 7, 8)
 * on Deno: the bundled worker/deno/deno.ts served by the real `deno` binary over a Deno KV file, runs
 * hosted by worker/deno/deno-runs.ts. The same scenario as tests/worker/run-access.test.ts on Node.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { bundleDenoServer, startDenoServer, stopDenoServer, type DenoServer } from '../support/deno-server.js';
import { jsonOrUndefined } from '../worker/miniflare-harness.js';
import { API_TOKENS, attackDeepBodies, attackForkAndResume, type Send } from '../worker/run-access-attack.js';
import { attackQuotedSecret, QUOTED_SECRET } from '../worker/quoted-secret-attack.js';

let directory: string;
let server: DenoServer;

beforeAll(async () => {
  directory = await mkdtemp(path.join(tmpdir(), 'tea-edge-deno-access-'));
  const bundle = await bundleDenoServer(directory);
  server = await startDenoServer(bundle, {
    KV_PATH: path.join(directory, 'kv.sqlite'),
    API_TOKENS,
    AGENT_SECRETS: 'SEARCH_TOKEN',
    SEARCH_TOKEN: QUOTED_SECRET,
  });
}, 120_000);

afterAll(async () => {
  if (server !== undefined) await stopDenoServer(server);
  await rm(directory, { recursive: true, force: true });
});

const send: Send = async (method, route, body, token) => {
  const response = await fetch(`${server.url}${route}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body !== undefined ? { body } : {}),
  });
  const text = await response.text();
  return { status: response.status, json: jsonOrUndefined(text), text };
};

describe('Deno host', () => {
  it("a viewer cannot fork or resume an admin's run; forked state is held to input_schema; deep bodies are 400; a cut quote shows no part of a secret", async () => {
    await attackForkAndResume(send);
    await attackDeepBodies(send);
    await attackQuotedSecret(send, 'viewer-token-5678');
  }, 90_000);
});
