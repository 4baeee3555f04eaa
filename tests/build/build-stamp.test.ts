/**
 * Build once: `node build/build.mjs --if-stale` (what `npm ci`'s prepare, `npm start`, `npm test`
 * and `npm pack` run) skips the build when dist/ was built from the current inputs. The stamp
 * (build/stamp.mjs) must notice every kind of change that makes dist/ stale.
 */
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
// @ts-expect-error plain ESM build helper without types
import { clearStamp, inputHash, staleReason, writeStamp } from '../../build/stamp.mjs';

const ROOT = path.resolve(import.meta.dirname, '../..');
let root: string;

async function put(file: string, text: string): Promise<void> {
  await mkdir(path.dirname(path.join(root, file)), { recursive: true });
  await writeFile(path.join(root, file), text);
}

/** A built project: one source, one example, a lock file, one output, and a stamp. */
async function built(): Promise<void> {
  await put('src/index.ts', 'export const a = 1;\n');
  await put('examples/hello.yaml', 'name: hello\n');
  await put('package-lock.json', '{}\n');
  await put('dist/index.js', 'export const a = 1;\n');
  await put('build/generated/fengari.js', '// vm\n');
  await writeStamp(root, await inputHash(root));
}

describe('the build stamp', () => {
  beforeEach(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'tea-edge-stamp-'));
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  it('is fresh right after a build', async () => {
    await built();
    expect(await staleReason(root)).toBeUndefined();
  });

  it('is stale without a stamp, or once a build has started', async () => {
    expect(await staleReason(root)).toMatch(/no build stamp/);
    await built();
    await clearStamp(root);
    expect(await staleReason(root)).toMatch(/no build stamp/);
  });

  it('is stale when a source, an example or the lock file changes, or a file is added', async () => {
    for (const [file, text] of [
      ['src/index.ts', 'export const a = 2;\n'],
      ['examples/hello.yaml', 'name: hello2\n'],
      ['package-lock.json', '{"lockfileVersion": 3}\n'],
      ['web-demo/app.ts', 'export {};\n'],
    ] as const) {
      await built();
      await put(file, text);
      expect(await staleReason(root), file).toMatch(/changed/);
      await rm(root, { recursive: true, force: true });
      await mkdir(root);
    }
  });

  it('is stale when a variable the build reads changes', async () => {
    await built();
    expect(await inputHash(root, { TEA_WORKER_AGENTS: 'examples' })).not.toBe(await inputHash(root, {}));
    expect(await inputHash(root, { TEA_WEB_DEMO_DEBUG: '1' })).not.toBe(await inputHash(root, {}));
  });

  it('is stale when an output is missing or was changed', async () => {
    await built();
    await rm(path.join(root, 'dist/index.js'));
    expect(await staleReason(root)).toMatch(/dist\/index\.js is missing/);
    await built();
    await put('build/generated/fengari.js', '// another vm\n');
    expect(await staleReason(root)).toMatch(/build\/generated\/fengari\.js changed/);
  });

  it('ignores what the build writes (build/generated, dist) when hashing the inputs', async () => {
    await built();
    const before = await inputHash(root);
    await put('build/generated/tau-prolog.js', '// prolog\n');
    await put('dist/other.js', '1');
    expect(await inputHash(root)).toBe(before);
  });

  it('is what npm ci, npm start, npm test and npm pack run, so a clone builds once', () => {
    const scripts = (
      JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
    ).scripts;
    for (const name of ['prepare', 'start', 'test', 'bench'])
      expect(scripts[name], name).toContain('node build/build.mjs --if-stale');
    expect(scripts.build).toBe('node build/build.mjs');
    const builds =
      Object.values(scripts)
        .join(' && ')
        .match(/node build\/build\.mjs(?! --if-stale)/g) ?? [];
    expect(builds).toHaveLength(1);
  });
});
