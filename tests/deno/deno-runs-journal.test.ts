/**
 * Runs tests/deno/deno-runs-journal.ts inside the `deno` binary: bundled first, as the worker is
 * (the engine imports its prompt templates as text, which only the bundler knows how to load),
 * then run over `Deno.openKv(':memory:')`; every case must pass.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { DENO_BINARY } from '../support/deno-binary.js';

const root = path.resolve(import.meta.dirname, '../..');

describe('durable runs on Deno: recorded tool results and restart counts', () => {
  it('a run handed over mid-node is continued without calling a recorded tool again; a node that kills its process each time is given up after 3 continuations; a run whose done was stored before its process died is recorded, not run again (inside Deno)', async () => {
    const directory = await mkdtemp(path.join(tmpdir(), 'tea-edge-deno-journal-'));
    try {
      const { bundleWorker } = await import(pathToFileURL(path.join(root, 'build/targets/30-worker.mjs')).href);
      const { text } = (await bundleWorker({
        root,
        entry: 'tests/deno/deno-runs-journal.ts',
        agentsDir: 'tests/worker/agents',
        minify: false,
      })) as { text: string };
      const script = path.join(directory, 'journal.js');
      await writeFile(script, text);
      const { stdout } = await promisify(execFile)(DENO_BINARY, ['run', '--quiet', '--unstable-kv', script], {
        cwd: directory,
        timeout: 60_000,
        env: { ...process.env, DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' },
      });
      const { results } = JSON.parse(stdout.trim().split('\n').pop()!) as {
        results: Array<{ name: string; status: string; error?: string }>;
      };
      expect(results).toHaveLength(3);
      expect(results.filter((result) => result.status !== 'passed')).toEqual([]);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  }, 120_000);
});
