/**
 * The bundle check: the production worker (examples/ agents, checked during the build) goes
 * through `wrangler deploy --dry-run` offline; a broken agent fails the build instead.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { wranglerDryRun } from './wrangler-dry-run.js';

const root = path.resolve(import.meta.dirname, '../..');

describe('worker bundle', () => {
  it('passes wrangler deploy --dry-run and reports its size', async () => {
    const result = await wranglerDryRun();
    expect(result.output).toContain('--dry-run: exiting now.');
    expect(result.output).toContain('TRACES');
    expect(result.gzipKiB).toBeGreaterThan(10);
    // A regression guard; the budget of 160 KiB is reported by bench/worker.bench.ts.
    expect(result.gzipKiB).toBeLessThan(320);
  }, 180_000);

  it('fails the build when an agent does not load, naming the file and line', async () => {
    const directory = await mkdtemp(path.join(tmpdir(), 'tea-edge-agents-'));
    try {
      await writeFile(path.join(directory, 'good.yaml'), 'name: good\nnodes:\n  - name: a\n');
      await writeFile(path.join(directory, 'broken.yaml'), 'name: broken\nnodes:\n  - name: a\n    goto: nowhere\n');
      // @ts-expect-error plain ESM build module without types
      const { bundleWorker } = await import('../../build/targets/30-worker.mjs');
      const failure = await bundleWorker({ root, agentsDir: directory }).catch((error: Error) => error);
      expect(failure).toBeInstanceOf(Error);
      expect((failure as Error).message).toMatch(/broken\.yaml:\d+/);
      expect((failure as Error).message).toContain('INVALID_AGENT');
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  }, 120_000);
});
