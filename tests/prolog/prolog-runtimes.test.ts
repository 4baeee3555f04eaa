/**
 * The Prolog corpus (prolog-corpus.ts) in workerd (Miniflare, code generation refused as in
 * production), headless Chromium (strict CSP) and Deno, bundled with the engine's esbuild
 * settings: every outcome (status, error code, budget, final state) equals Node's.
 */
import * as esbuild from 'esbuild';
import { Miniflare } from 'miniflare';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error plain ESM build helper without types
import { baseOptions } from '../../build/shared.mjs';
import { CHROMIUM, runInChromiumPage } from '../support/chromium-page.js';
import { DENO_BINARY } from '../support/deno-binary.js';
import { runModuleInDeno } from '../support/deno-stdin.js';
import { readPrologCorpus } from './corpus-agents.js';
import { runPrologCorpus, type CorpusOutcome } from './prolog-corpus.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const AGENTS = readPrologCorpus();
const IMPORTS = `import { runPrologCorpus } from './tests/prolog/prolog-corpus.ts';\nconst AGENTS = ${JSON.stringify(AGENTS)};\n`;

let inNode: CorpusOutcome[];
beforeAll(async () => {
  inNode = await runPrologCorpus(AGENTS);
  expect(inNode.filter((outcome) => outcome.error === 'PROLOG_BUDGET').length).toBe(5);
}, 120_000);

async function bundle(body: string): Promise<string> {
  const result = await esbuild.build(
    baseOptions({
      stdin: { contents: IMPORTS + body, resolveDir: ROOT, loader: 'ts', sourcefile: 'prolog-corpus-entry.ts' },
      platform: 'browser',
      write: false,
      minify: true,
    }),
  );
  const script = result.outputFiles[0]!.text;
  expect(script).not.toMatch(/\beval\(|new Function\(/);
  return script;
}

describe('Prolog corpus in workerd', () => {
  it('gives the same outcomes as Node', async () => {
    const script = await bundle(
      'export default { async fetch() { return Response.json(await runPrologCorpus(AGENTS)); } };',
    );
    const miniflare = new Miniflare({ modules: true, script, compatibilityDate: '2026-05-01' });
    try {
      const response = await miniflare.dispatchFetch('http://corpus.test/');
      const body = await response.text();
      expect(response.status, body.slice(0, 500)).toBe(200);
      expect(JSON.parse(body)).toEqual(inNode);
    } finally {
      await miniflare.dispose();
    }
  }, 180_000);
});

describe.skipIf(!existsSync(CHROMIUM) && !process.env.CI)('Prolog corpus in Chromium', () => {
  it('gives the same outcomes as Node', async () => {
    const script = await bundle(
      'runPrologCorpus(AGENTS).then((outcomes) => { globalThis.__corpus = outcomes; }, (error) => { globalThis.__corpus = String(error); });',
    );
    const { value, errors } = await runInChromiumPage(script, '__corpus', 180_000);
    expect(errors).toEqual([]);
    expect(value).toEqual(inNode);
  }, 240_000);
});

describe.skipIf(!existsSync(DENO_BINARY) && !process.env.CI)('Prolog corpus in Deno', () => {
  it('gives the same outcomes as Node', async () => {
    const output = await runModuleInDeno(await bundle('console.log(JSON.stringify(await runPrologCorpus(AGENTS)));'));
    expect(JSON.parse(output.trim().split('\n').pop()!)).toEqual(inNode);
  }, 240_000);
});
