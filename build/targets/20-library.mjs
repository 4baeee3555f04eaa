// The library: src/index.ts and the public subpaths, dependencies kept external; the CLI bundled
// whole for Node; the engine bundled for browsers/workers (minified) for size reports.
import * as esbuild from 'esbuild';
import { copyFile, mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { baseOptions } from '../shared.mjs';

const libraryEntries = [
  ['src/index.ts', 'index'],
  // Opt-in by import (docs/architecture.md, "What to import"): the engine with nothing passed in,
  // and one entry per action set and script language.
  ['src/engine.ts', 'engine'],
  ['src/action-sets/core.ts', 'actions/core'],
  ['src/action-sets/llm.ts', 'actions/llm'],
  ['src/action-sets/tools.ts', 'actions/tools'],
  ['src/action-sets/reasoning.ts', 'reasoning'],
  ['src/action-sets/reflection.ts', 'reflection'],
  ['src/action-sets/prolog.ts', 'prolog'],
  ['src/lua/lua-script-sandbox.ts', 'lua'],
  ['src/testing/index.ts', 'testing'],
  ['src/host.ts', 'host'],
  ['src/host-storage.ts', 'host-storage'],
  ['src/host-scripts.ts', 'host-scripts'],
  ['src/host-probe.ts', 'host-probe'],
  ['adapters/fs/index.ts', 'adapters/fs'],
  ['adapters/indexeddb/index.ts', 'adapters/indexeddb'],
  ['adapters/workers-kv/index.ts', 'adapters/workers-kv'],
  ['adapters/deno-kv/index.ts', 'adapters/deno-kv'],
  ['worker/app.ts', 'worker/app'],
];

/** The modules of src/ the public entries reach (from esbuild's metafile of the same build, not written). */
async function reachedModules(options) {
  const { metafile } = await esbuild.build({ ...options, write: false, metafile: true, logLevel: 'silent' });
  return Object.keys(metafile.inputs).filter((input) => /^src\/.*\.ts$/.test(input) && !input.endsWith('.d.ts'));
}

export default async function build({ root, exists }) {
  const entryPoints = {};
  for (const [source, out] of libraryEntries) if (exists(source)) entryPoints[out] = path.join(root, source);
  // Each module of src/ is an entry too (dist/modules/, not exported), so the chunks follow module
  // boundaries: the package.json "sideEffects" list names no src/ module, so a user's bundler
  // drops every module their imports do not reach (importing runAgent does not bring the YAML
  // parser or the Lua VM). One chunk holding many modules could only be kept or dropped whole.
  const options = baseOptions({
    entryPoints,
    absWorkingDir: root,
    outdir: path.join(root, 'dist'),
    platform: 'neutral',
    mainFields: ['module', 'main'],
    packages: 'external',
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
  });
  const publicSources = new Set(Object.values(entryPoints));
  for (const source of await reachedModules(options)) {
    if (!publicSources.has(path.join(root, source)))
      entryPoints[`modules/${source.replace(/\.ts$/, '')}`] = path.join(root, source);
  }
  // Built afresh: chunks of an earlier build (other hashes) would ship in the tarball.
  await rm(path.join(root, 'dist/chunks'), { recursive: true, force: true });
  await rm(path.join(root, 'dist/modules'), { recursive: true, force: true });
  await esbuild.build({ ...options, entryPoints });
  if (exists('cli/main.ts')) {
    await esbuild.build(
      baseOptions({
        // The Python sandbox's process and thread are files of their own (python-sandbox.ts starts them).
        entryPoints: {
          cli: path.join(root, 'cli/main.ts'),
          'python-process': path.join(root, 'cli/python/python-process.ts'),
          'python-worker': path.join(root, 'cli/python/python-worker.ts'),
        },
        outdir: path.join(root, 'dist'),
        platform: 'node',
        banner: {
          js: "import { createRequire as __teaCreateRequire } from 'node:module'; const require = __teaCreateRequire(import.meta.url);",
        },
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
