/**
 * The hosts' seams through the real apps (issue 13): the Workers bundle (Miniflare, with the
 * examples bundled and an R2 bucket bound as FILES) and `tea-edge serve` on Node (--agents
 * examples, --files DIR) run examples/tea-agent-files.yaml (sub-runs of the bundled / folder agent
 * files) and examples/tea-file-notes.yaml (file.write/read into R2 / the folder) with the same
 * final states. Without FILES / --files, the file actions are refused with FORBIDDEN.
 */
import type { Miniflare } from 'miniflare';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve, type RunningServer } from '../../worker/node/node.js';
import { COMPATIBILITY_DATE, COMPATIBILITY_FLAGS, packageRoot } from './miniflare-harness.js';

const root = packageRoot();

describe('agent files and files through the Workers app and tea-edge serve', () => {
  let withFiles: Miniflare;
  let withoutFiles: Miniflare;
  let durable: Miniflare;
  let server: RunningServer;
  let bare: RunningServer;
  let directory: string;

  beforeAll(async () => {
    const { Miniflare } = await import('miniflare');
    const { bundleWorker } = await import(pathToFileURL(path.join(root, 'build/targets/30-worker.mjs')).href);
    const { text } = (await bundleWorker({
      root,
      entry: 'worker/cloudflare/cloudflare.ts',
      agentsDir: 'examples',
      minify: true,
    })) as { text: string };
    const base = {
      modules: true,
      script: text,
      compatibilityDate: COMPATIBILITY_DATE,
      compatibilityFlags: COMPATIBILITY_FLAGS,
      kvNamespaces: ['TRACES'],
    };
    withFiles = new Miniflare({ ...base, r2Buckets: ['FILES'] });
    withoutFiles = new Miniflare(base);
    // With RUNS bound, every run executes in its Durable Object (worker/cloudflare/run-coordinator.ts).
    durable = new Miniflare({
      ...base,
      r2Buckets: ['FILES'],
      durableObjects: { RUNS: { className: 'RunCoordinator', useSQLite: true } },
    });
    directory = mkdtempSync(path.join(tmpdir(), 'tea-serve-files-'));
    mkdirSync(path.join(directory, 'files'));
    server = await serve({
      port: 0,
      agentsDir: path.join(root, 'examples'),
      traceDir: path.join(directory, 'traces'),
      filesDir: path.join(directory, 'files'),
      webDemoDir: directory,
    });
    bare = await serve({
      port: 0,
      agentsDir: path.join(root, 'examples'),
      traceDir: path.join(directory, 'traces-bare'),
      webDemoDir: directory,
    });
  }, 120_000);
  afterAll(async () => {
    await withFiles?.dispose();
    await withoutFiles?.dispose();
    await durable?.dispose();
    await server?.close();
    await bare?.close();
    rmSync(directory, { recursive: true, force: true });
  });

  async function inWorker(miniflare: Miniflare, agent: string, input: Record<string, unknown>) {
    const response = await miniflare.dispatchFetch(`http://worker.test/agents/${agent}/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ input }),
    });
    return (await response.json()) as { status: string; state: Record<string, unknown>; error?: { code: string } };
  }
  async function onNode(target: RunningServer, agent: string, input: Record<string, unknown>) {
    const response = await fetch(`${target.url}/agents/${agent}/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ input }),
    });
    return (await response.json()) as { status: string; state: Record<string, unknown>; error?: { code: string } };
  }

  it('tea-agent-files: the sub-agents are the bundled / folder agent files; same state on both hosts', async () => {
    const input = { ticket: 'charged twice', customer: 'ada' };
    const worker = await inWorker(withFiles, 'tea-agent-files', input);
    const node = await onNode(server, 'tea-agent-files', input);
    expect(worker.status, JSON.stringify(worker.error)).toBe('completed');
    expect(worker.state).toMatchObject({ category: 'billing', verdict: 'approve' });
    expect(worker.state).toEqual(node.state);
    const inObject = await inWorker(durable, 'tea-agent-files', input);
    expect(inObject.status, JSON.stringify(inObject.error)).toBe('completed');
    expect(inObject.state).toEqual(node.state);
  });

  it('tea-file-notes: writes into R2 / the --files folder; same state on both hosts', async () => {
    const worker = await inWorker(withFiles, 'tea-file-notes', { topic: 'genmaicha' });
    const node = await onNode(server, 'tea-file-notes', { topic: 'genmaicha' });
    expect(worker.status, JSON.stringify(worker.error)).toBe('completed');
    expect(worker.state).toEqual(node.state);
    const bucket = (await withFiles.getR2Bucket('FILES')) as unknown as {
      get(key: string): Promise<{ text(): Promise<string> } | null>;
    };
    expect(await (await bucket.get('notes/genmaicha.md'))?.text()).toContain('# genmaicha');
    expect(readFileSync(path.join(directory, 'files/summaries/genmaicha.txt'), 'utf8')).toBe(worker.state.summary);
    const inObject = await inWorker(durable, 'tea-file-notes', { topic: 'genmaicha' });
    expect(inObject.state).toEqual(node.state);
  });

  it('without an R2 binding / --files, file.write is refused with FORBIDDEN', async () => {
    const worker = await inWorker(withoutFiles, 'tea-file-notes', {});
    const node = await onNode(bare, 'tea-file-notes', {});
    expect(worker.status).toBe('failed');
    expect(worker.error?.code).toBe('FORBIDDEN');
    expect(node.error?.code).toBe('FORBIDDEN');
  });
});
