/**
 * Fork and resume access, forked-state validation and the body depth cap (issue 24 causes 7, 8)
 * in workerd: the bundled Worker in Miniflare, with runs in their request over KV and with runs
 * in Durable Objects (the RUNS binding), and a viewer reading a host secret through a cut quote
 * (cause 3). The same scenarios as run-access.test.ts on Node.
 */
import type { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { startDurableWorker } from './durable-harness.js';
import { bundleTestWorker, call, startWorker } from './miniflare-harness.js';
import { API_TOKENS, attackDeepBodies, attackForkAndResume, type Send } from './run-access-attack.js';
import { attackQuotedSecret, QUOTED_SECRET } from './quoted-secret-attack.js';

let script: string;
/** The host secret the `quoter` agent quotes (cause 3). */
const SECRET_BINDINGS = { AGENT_SECRETS: 'SEARCH_TOKEN', SEARCH_TOKEN: QUOTED_SECRET };
const running: Miniflare[] = [];

beforeAll(async () => {
  script = await bundleTestWorker();
}, 120_000);

afterAll(async () => {
  for (const miniflare of running.splice(0)) await miniflare.dispose();
});

function sender(miniflare: Miniflare): Send {
  return async (method, route, body, token) => {
    const answer = await call(miniflare, method, route, body, { authorization: `Bearer ${token}` });
    return { status: answer.status, json: answer.json, text: answer.text };
  };
}

describe('runs in the request, KV stores', () => {
  it("a viewer cannot fork or resume an admin's run; forked state is held to input_schema; deep bodies are 400; a cut quote shows no part of a secret", async () => {
    const miniflare = await startWorker(script, { bindings: { API_TOKENS, ...SECRET_BINDINGS } });
    running.push(miniflare);
    await attackForkAndResume(sender(miniflare));
    await attackDeepBodies(sender(miniflare));
    await attackQuotedSecret(sender(miniflare), 'viewer-token-5678');
  }, 60_000);
});

describe('runs in Durable Objects', () => {
  it("a viewer cannot fork or resume an admin's run; forked state is held to input_schema; deep bodies are 400; a cut quote shows no part of a secret", async () => {
    const miniflare = await startDurableWorker(script, { bindings: { API_TOKENS, ...SECRET_BINDINGS } });
    running.push(miniflare);
    await attackForkAndResume(sender(miniflare));
    await attackDeepBodies(sender(miniflare));
    await attackQuotedSecret(sender(miniflare), 'viewer-token-5678');
  }, 60_000);
});
