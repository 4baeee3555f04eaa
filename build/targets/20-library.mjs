// The library: src/index.ts and the public subpaths, dependencies kept external; the CLI bundled
// whole for Node; the engine bundled for browsers/workers (minified) for size reports.
import * as esbuild from 'esbuild';
import { copyFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { baseOptions } from '../shared.mjs';

const libraryEntries = [
  ['src/index.ts', 'index'],
  ['src/testing/index.ts', 'testing'],
  ['adapters/fs/index.ts', 'adapters/fs'],
  ['adapters/indexeddb/index.ts', 'adapters/indexeddb'],
  ['adapters/workers-kv/index.ts', 'adapters/workers-kv'],
  ['adapters/deno-kv/index.ts', 'adapters/deno-kv'],
  ['worker/app.ts', 'worker/app'],
];

export default async function build({ root, exists }) {
  const entryPoints = {};
  for (const [source, out] of libraryEntries) if (exists(source)) entryPoints[out] = path.join(root, source);
  await esbuild.build(
    baseOptions({
      entryPoints,
      outdir: path.join(root, 'dist'),
      platform: 'neutral',
      mainFields: ['module', 'main'],
      packages: 'external',
      splitting: true,
      chunkNames: 'chunks/[name]-[hash]',
    }),
  );
  if (exists('cli/main.ts')) {
    await esbuild.build(
      baseOptions({
        // The Python sandbox's process and thread are files of their own (python-sandbox.ts starts them).
        entryPoints: { cli: path.join(root, 'cli/main.ts'), 'python-process': path.join(root, 'cli/python/python-process.ts'), 'python-worker': path.join(root, 'cli/python/python-worker.ts') },
        outdir: path.join(root, 'dist'),
        platform: 'node',
        banner: { js: "import { createRequire as __teaCreateRequire } from 'node:module'; const require = __teaCreateRequire(import.meta.url);" },
      }),
    );
  }
  if (exists('src/engine-bundle.ts')) {
    await esbuild.build(
      baseOptions({
        entryPoints: { 'engine.browser': path.join(root, 'src/engine-bundle.ts') },
        outdir: path.join(root, 'dist'),
        platform: 'browser',
        minify: true,
        metafile: false,
      }),
    );
  }
  if (exists('src/spec/agent-schema.json')) {
    await mkdir(path.join(root, 'dist'), { recursive: true });
    await copyFile(path.join(root, 'src/spec/agent-schema.json'), path.join(root, 'dist/agent-schema.json'));
  }
}
