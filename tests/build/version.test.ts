/**
 * One version: `tea-edge --version`, the worker's `/health` and package.json agree, and the
 * bundles that carry the version carry only that field of the manifest (src/version.ts).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Miniflare } from 'miniflare';
import { ROOT, runCli } from '../support/run-cli.js';
import { bundleTestWorker, call, startWorker } from '../worker/miniflare-harness.js';

const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as Record<string, unknown> & {
  version: string;
};
/** Manifest text that would only be in a bundle if the whole package.json had been inlined. */
const OTHER_FIELDS = [
  manifest.description,
  JSON.stringify(manifest.devDependencies),
  (manifest.repository as { url: string }).url,
] as string[];

let worker: string;
let miniflare: Miniflare;

beforeAll(async () => {
  worker = await bundleTestWorker();
  miniflare = await startWorker(worker);
}, 120_000);
afterAll(() => miniflare?.dispose());

describe('the package version', () => {
  it('is what tea-edge --version prints', async () => {
    const outcome = await runCli(['--version']);
    expect(outcome).toMatchObject({ code: 0, stdout: `tea-edge ${manifest.version}\n` });
  });

  it('is what /health of the bundled worker reports', async () => {
    const health = await call(miniflare, 'GET', '/health');
    expect(health.json).toEqual({ ok: true, version: manifest.version });
  });

  it('is the only field of package.json in the worker and CLI bundles', () => {
    const cli = readFileSync(path.join(ROOT, 'dist/cli.js'), 'utf8');
    for (const bundle of [worker, cli]) {
      expect(bundle).toContain(JSON.stringify(manifest.version));
      for (const text of OTHER_FIELDS) expect(bundle).not.toContain(text);
    }
  });
});
