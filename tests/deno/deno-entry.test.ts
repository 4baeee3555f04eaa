/**
 * worker/deno.ts for real: the bundle (with the test agents) served by the `deno` binary from
 * node_modules on a random port over a Deno KV file; a run paused in one Deno process is resumed
 * by a second process sharing the KV file, and ends with the uninterrupted final state.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleTestWorker } from '../worker/miniflare-harness.js';
import { startDenoBundle } from '../support/deno-process.js';

let directory: string;
let bundle: string;
const processes: ChildProcess[] = [];

beforeAll(async () => {
  directory = await mkdtemp(path.join(tmpdir(), 'tea-edge-deno-'));
  bundle = path.join(directory, 'deno-worker.js');
  await writeFile(bundle, await bundleTestWorker('worker/deno.ts'));
});

afterAll(async () => {
  for (const child of processes) child.kill('SIGKILL');
  await rm(directory, { recursive: true, force: true });
});

/** Starts the Deno server; resolves with its base URL once it prints its listening line. */
async function startDeno(environment: Record<string, string>): Promise<{ url: string; child: ChildProcess }> {
  const started = startDenoBundle(bundle, directory, environment);
  void started.then(({ child }) => processes.push(child), () => undefined);
  return started;
}

async function stopDeno(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

async function post(url: string, body: unknown) {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, json: (await response.json()) as any };
}

describe('worker/deno.ts under the deno binary', () => {
  it('serves /health and runs agents; a run paused in one process is finished by another sharing the KV file', async () => {
    const kvPath = path.join(directory, 'traces.sqlite');
    const first = await startDeno({ KV_PATH: kvPath });
    const health = await fetch(`${first.url}/health`);
    expect(await health.json()).toEqual({ ok: true, version: expect.any(String) });
    const agents = (await (await fetch(`${first.url}/agents`)).json()) as Array<{ name: string }>;
    expect(agents.map((agent) => agent.name)).toContain('counter');

    const started = await post(`${first.url}/agents/counter/runs`, { input: { count: 1 } });
    expect(started.json).toMatchObject({ status: 'interrupted', stop_reason: 'interrupt_before' });
    const runId = started.json.run_id as string;
    await stopDeno(first.child);

    const second = await startDeno({ KV_PATH: kvPath });
    const middle = await post(`${second.url}/runs/${runId}/resume`, {});
    expect(middle.json).toMatchObject({ status: 'interrupted', stop_reason: 'interrupt_after' });
    const finished = await post(`${second.url}/runs/${runId}/resume`, {});
    expect(finished.json.status).toBe('completed');
    const reference = await post(`${second.url}/agents/counter-straight/runs`, { input: { count: 1 } });
    expect(finished.json.state).toEqual(reference.json.state);
    expect((await post(`${second.url}/runs/${runId}/resume`, {})).status).toBe(409);

    const events = (await (await fetch(`${second.url}/runs/${runId}/events`)).text()).trim().split('\n').map((line) => JSON.parse(line));
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    expect(events.filter((event) => event.type === 'done').map((event) => event.data.status)).toEqual(['interrupted', 'interrupted', 'completed']);
    await stopDeno(second.child);
  }, 120_000);
});
