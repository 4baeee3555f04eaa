/**
 * Issue 12 point 4 in workerd (the worker bundle in plain Miniflare): the agent of
 * tests/worker/hostile-agents, bundled as a production build would bundle it, answers hostile
 * input with INPUT_INVALID and honest input normally; `/health` answers after the attack.
 * Checks that the linear-time matcher (which builds one-code-point RegExps, not code) runs in
 * workerd, where code generation from strings is refused.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, packageRoot, startWorker } from './miniflare-harness.js';
import { HONEST_INPUT, HOSTILE_INPUT, HOSTILE_PATHS } from './hostile-input.js';

let worker: Miniflare;

beforeAll(async () => {
  const root = packageRoot();
  const { bundleWorker } = await import(pathToFileURL(path.join(root, 'build/targets/30-worker.mjs')).href);
  const { text } = (await bundleWorker({
    root,
    entry: 'worker/cloudflare/cloudflare.ts',
    agentsDir: 'tests/worker/hostile-agents',
    minify: true,
  })) as { text: string };
  worker = await startWorker(text);
}, 120_000);

afterAll(async () => {
  await worker?.dispose();
});

describe('workerd under a hostile input_schema attack', () => {
  it('answers INPUT_INVALID naming every field, then /health', async () => {
    const attack = await call(worker, 'POST', '/agents/hostile-input/runs', { input: HOSTILE_INPUT });
    expect(attack.json.status).toBe('failed');
    expect(attack.json.error.code).toBe('INPUT_INVALID');
    for (const field of HOSTILE_PATHS) expect(attack.json.error.message).toContain(field);
    expect((await call(worker, 'GET', '/health')).status).toBe(200);
    expect((await call(worker, 'POST', '/agents/hostile-input/runs', { input: HONEST_INPUT })).json.status).toBe(
      'completed',
    );
  }, 60_000);
});
