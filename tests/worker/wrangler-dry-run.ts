/**
 * `wrangler deploy --dry-run` of the production worker bundle (agents from examples/, or the
 * given directory), offline, in a scratch directory with a copy of wrangler.toml. Shared by the
 * bundle-check test and the worker benchmark.
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { packageRoot } from './miniflare-harness.js';

const root = packageRoot();

export interface DryRunResult {
  output: string;
  uploadKiB: number;
  gzipKiB: number;
  bundleBytes: number;
}

/** `scripts`: script languages to bundle beyond the agents' own (bundleWorker's option). */
export async function wranglerDryRun(agentsDir = 'examples', scripts: string[] = []): Promise<DryRunResult> {
  const { bundleWorker } = await import(pathToFileURL(path.join(root, 'build/targets/30-worker.mjs')).href);
  const directory = await mkdtemp(path.join(tmpdir(), 'tea-edge-wrangler-'));
  try {
    const { text } = (await bundleWorker({
      root,
      entry: 'worker/cloudflare/cloudflare.ts',
      agentsDir,
      scripts,
      minify: true,
    })) as { text: string };
    await mkdir(path.join(directory, 'dist/worker'), { recursive: true });
    await writeFile(path.join(directory, 'dist/worker/cloudflare.js'), text);
    await copyFile(path.join(root, 'wrangler.toml'), path.join(directory, 'wrangler.toml'));
    const { stdout, stderr } = await promisify(execFile)(
      path.join(root, 'node_modules/.bin/wrangler'),
      ['deploy', '--dry-run', '--outdir', path.join(directory, 'out')],
      {
        cwd: directory,
        timeout: 120_000,
        env: {
          ...process.env,
          WRANGLER_SEND_METRICS: 'false',
          CI: 'true',
          NO_COLOR: '1',
          WRANGLER_LOG_PATH: path.join(directory, 'logs'),
        },
      },
    );
    const output = stdout + stderr;
    const match = /Total Upload:\s*([\d.]+)\s*KiB\s*\/\s*gzip:\s*([\d.]+)\s*KiB/.exec(output);
    if (match === null) throw new Error(`wrangler printed no upload size:\n${output}`);
    return {
      output,
      uploadKiB: Number(match[1]),
      gzipKiB: Number(match[2]),
      bundleBytes: new TextEncoder().encode(text).length,
    };
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}
