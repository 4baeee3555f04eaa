/**
 * worker/deno/deno.ts for real: the bundle (with the test agents) served by the `deno` binary from
 * .cache/deno/ on a random port over a Deno KV file; a run paused in one Deno process is resumed
 * by a second process sharing the KV file, and ends with the uninterrupted final state.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleDenoServer, startDenoServer, stopDenoServer, type DenoServer } from '../support/deno-server.js';
import { packageRoot } from '../worker/miniflare-harness.js';

const root = packageRoot();

let directory: string;
let bundle: string;
/** The same entry bundled with examples/ (issue 13: agent files as sub-runs, FILES_DIR). */
let examplesBundle: string;
const servers: DenoServer[] = [];

beforeAll(async () => {
  directory = await mkdtemp(path.join(tmpdir(), 'tea-edge-deno-'));
  bundle = await bundleDenoServer(directory);
  const { bundleWorker } = await import(pathToFileURL(path.join(root, 'build/targets/30-worker.mjs')).href);
  examplesBundle = path.join(directory, 'deno-examples.js');
  await writeFile(
    examplesBundle,
    (
      (await bundleWorker({ root, entry: 'worker/deno/deno.ts', agentsDir: 'examples', minify: true })) as {
        text: string;
      }
    ).text,
  );
}, 120_000);

afterAll(async () => {
  for (const server of servers) await stopDenoServer(server, 'SIGKILL');
  await rm(directory, { recursive: true, force: true });
});

async function startDeno(
  environment: Record<string, string>,
  script = bundle,
  write = '--allow-write',
): Promise<DenoServer> {
  const server = await startDenoServer(script, environment, write);
  servers.push(server);
  return server;
}

async function post(url: string, body: unknown) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as any };
}

describe('worker/deno/deno.ts under the deno binary', () => {
  it('listens on 127.0.0.1 when HOSTNAME is not set, and refuses 0.0.0.0 without API_TOKENS unless ALLOW_NO_AUTH=1', async () => {
    const kvPath = path.join(directory, 'listen.sqlite');
    const local = await startDeno({ KV_PATH: kvPath, HOSTNAME: '', API_TOKENS: '' });
    expect(local.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    await stopDenoServer(local);
    await expect(startDeno({ KV_PATH: kvPath, HOSTNAME: '0.0.0.0', API_TOKENS: '' })).rejects.toThrow(
      /deno exited with 2: refusing to serve the API on 0\.0\.0\.0.*Set API_TOKENS, listen on 127\.0\.0\.1, or allow an open API with ALLOW_NO_AUTH=1/,
    );
    const open = await startDeno({ KV_PATH: kvPath, HOSTNAME: '0.0.0.0', API_TOKENS: '', ALLOW_NO_AUTH: '1' });
    expect(open.output()).toMatch(/warning: serving the API on 0\.0\.0\.0, .*\(ALLOW_NO_AUTH=1\)/);
    await stopDenoServer(open);
  });

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
    await stopDenoServer(first);

    const second = await startDeno({ KV_PATH: kvPath });
    const middle = await post(`${second.url}/runs/${runId}/resume`, {});
    expect(middle.json).toMatchObject({ status: 'interrupted', stop_reason: 'interrupt_after' });
    const finished = await post(`${second.url}/runs/${runId}/resume`, {});
    expect(finished.json.status).toBe('completed');
    const reference = await post(`${second.url}/agents/counter-straight/runs`, { input: { count: 1 } });
    expect(finished.json.state).toEqual(reference.json.state);
    expect((await post(`${second.url}/runs/${runId}/resume`, {})).status).toBe(409);

    const events = (await (await fetch(`${second.url}/runs/${runId}/events`)).text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    expect(events.filter((event) => event.type === 'done').map((event) => event.data.status)).toEqual([
      'interrupted',
      'interrupted',
      'completed',
    ]);
    await stopDenoServer(second);
  }, 120_000);

  it('runs agent files as sub-runs of the bundled agents, and file.write/read in FILES_DIR (writes allowed only there)', async () => {
    const files = path.join(directory, 'files');
    await mkdir(files);
    // Deno's file store is the racy walk: without the host's acceptance the entry does not start.
    await expect(
      startDeno(
        { KV_PATH: path.join(directory, 'refused.sqlite'), FILES_DIR: files },
        examplesBundle,
        `--allow-write=${directory}`,
      ),
    ).rejects.toThrow(/deno exited with 2: .*STORAGE_ERROR|deno exited with 2: .*ACCEPT_FILE_RACE=1/);
    const deno = await startDeno(
      { KV_PATH: path.join(directory, 'examples.sqlite'), FILES_DIR: files, ACCEPT_FILE_RACE: '1' },
      examplesBundle,
      `--allow-write=${directory}`,
    );
    expect(deno.output()).toContain('accepted with ACCEPT_FILE_RACE=1');
    const team = await post(`${deno.url}/agents/tea-agent-files/runs`, { input: { ticket: 'charged twice' } });
    expect(team.json).toMatchObject({ status: 'completed', state: { category: 'billing', verdict: 'approve' } });
    const notes = await post(`${deno.url}/agents/tea-file-notes/runs`, { input: { topic: 'hojicha' } });
    expect(notes.json).toMatchObject({ status: 'completed', state: { summary_path: 'summaries/hojicha.txt' } });
    expect(await readFile(path.join(files, 'notes/hojicha.md'), 'utf8')).toContain('# hojicha');
    await stopDenoServer(deno);
  }, 120_000);
});

describe('worker/deno/deno.ts refuses a configuration it cannot read', () => {
  it('exits at start naming the variable (HOST_CONFIG), for numbers and for AGENT_SECRETS', async () => {
    const cases: Array<[Record<string, string>, string]> = [
      [
        { KV_PATH: path.join(directory, 'bad-1.sqlite'), RUN_LEASE_MS: '15s' },
        'RUN_LEASE_MS must be an integer ≥ 1, got "15s"',
      ],
      [
        { KV_PATH: path.join(directory, 'bad-2.sqlite'), MAX_BODY_BYTES: 'lots' },
        'MAX_BODY_BYTES must be an integer ≥ 1',
      ],
      [
        { KV_PATH: path.join(directory, 'bad-3.sqlite'), AGENT_SECRETS: 'NOT_SET_ANYWHERE' },
        'NOT_SET_ANYWHERE is not set',
      ],
    ];
    for (const [environment, words] of cases) {
      const started = startDenoServer(bundle, environment);
      await expect(started).rejects.toThrow(/deno exited with [1-9]/);
      await expect(started).rejects.toThrow(words);
    }
  }, 60_000);
});
