/**
 * Issue 12 point 4 against the real Hono app on Node (worker/node/node.ts, what `tea-edge serve`
 * runs): unauthenticated requests whose input attacks an agent's `input_schema` (catastrophic
 * patterns, a hostile `patternProperties` key, `format: url`/`email`, a large enum with
 * uniqueItems) get a typed answer, and `/health` keeps answering while and after they are
 * checked. Before the fix one such request froze the whole server for tens of seconds.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve, type RunningServer } from '../../worker/node/node.js';
import { HONEST_INPUT, HOSTILE_INPUT, HOSTILE_PATHS } from './hostile-input.js';

let directory: string;
let server: RunningServer;

beforeAll(async () => {
  directory = await mkdtemp(path.join(tmpdir(), 'tea-edge-hostile-'));
  server = await serve({
    port: 0,
    agentsDir: path.join(import.meta.dirname, 'hostile-agents'),
    traceDir: path.join(directory, 'traces'),
  });
});

afterAll(async () => {
  await server?.close();
  await rm(directory, { recursive: true, force: true });
});

async function run(
  input: Record<string, unknown>,
): Promise<{ status: string; error?: { code: string; message: string } }> {
  const response = await fetch(`${server.url}/agents/hostile-input/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ input }),
  });
  return (await response.json()) as { status: string; error?: { code: string; message: string } };
}

describe('tea-edge serve under a hostile input_schema attack', () => {
  it('answers each hostile run with INPUT_INVALID while /health keeps answering', async () => {
    const attacks = Array.from({ length: 3 }, () => run(HOSTILE_INPUT));
    const health = await fetch(`${server.url}/health`);
    expect(health.status).toBe(200);
    for (const result of await Promise.all(attacks)) {
      expect(result.status).toBe('failed');
      expect(result.error?.code).toBe('INPUT_INVALID');
      for (const field of HOSTILE_PATHS) expect(result.error?.message).toContain(field);
      expect(result.error!.message.length).toBeLessThan(20_000);
    }
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
  }, 30_000);

  it('still validates honest input (the patterns mean what they say)', async () => {
    expect((await run(HONEST_INPUT)).status).toBe('completed');
  }, 30_000);
});
