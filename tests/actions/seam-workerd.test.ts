/**
 * The seam scenarios in workerd (Miniflare): the engine bundled as a worker, files and agent files
 * in an R2 bucket binding (adapters/r2/r2-file-store.ts). Same outcomes as on Node.
 */
import * as esbuild from 'esbuild';
import { Miniflare } from 'miniflare';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error plain ESM build helper without types
import { baseOptions } from '../../build/shared.mjs';
import { exampleAgents, nodeOutcomes } from './seam-node-outcomes.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

const ENTRY = `import { runSeamScenarios } from './tests/actions/seam-scenarios.ts';
import { createR2FileStore } from './adapters/r2/r2-file-store.ts';
export default {
  async fetch(request, env) {
    const { agents, prefix } = await request.json();
    return Response.json(await runSeamScenarios(createR2FileStore(env.FILES, { prefix }), agents));
  },
};`;

describe('seam scenarios in workerd (R2)', () => {
  let miniflare: Miniflare;

  beforeAll(async () => {
    const bundle = await esbuild.build(
      baseOptions({
        stdin: { contents: ENTRY, resolveDir: ROOT, sourcefile: 'seam-worker.ts', loader: 'ts' },
        platform: 'browser',
        write: false,
      }),
    );
    miniflare = new Miniflare({
      modules: true,
      script: bundle.outputFiles![0]!.text,
      compatibilityDate: '2026-05-01',
      r2Buckets: ['FILES'],
    });
  }, 60_000);
  afterAll(async () => {
    await miniflare?.dispose();
  });

  it('agent files as sub-runs and file.read/write give the same outcomes as on Node', async () => {
    const response = await miniflare.dispatchFetch('http://worker.test/', {
      method: 'POST',
      body: JSON.stringify({ agents: exampleAgents(), prefix: 'run-1/' }),
    });
    const inWorker = await response.json();
    const inNode = await nodeOutcomes();
    expect(inWorker).toEqual(inNode);
    // The files are R2 objects under the prefix, nowhere else.
    const bucket = (await miniflare.getR2Bucket('FILES')) as unknown as {
      get(key: string): Promise<{ text(): Promise<string> } | null>;
      list(): Promise<{ objects: Array<{ key: string }> }>;
    };
    expect(await (await bucket.get('run-1/summaries/sencha.txt'))?.text()).toBe(
      'Oolong is a partly oxidised tea between green and black.',
    );
    const keys = (await bucket.list()).objects.map((object) => object.key);
    expect(keys.every((key) => key.startsWith('run-1/'))).toBe(true);
  }, 60_000);
});
