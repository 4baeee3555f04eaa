/**
 * Bundle sizes of the engine for browsers and workers, minified and gzipped (level 9): the whole
 * engine (src/engine-bundle.ts), and the same with the Lua VM swapped for an empty module, to show
 * what Lua costs. Targets: ≤ 60 KB without Lua, ≤ 130 KB with Lua. And what a library user's
 * browser bundle weighs per use, built from the packed tarball (bench/package-bundles.ts).
 */
import * as esbuild from 'esbuild';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { measurePackageBundles } from './package-bundles.js';
// @ts-expect-error plain ESM build helper without types
import { baseOptions } from '../build/shared.mjs';

const ROOT = path.resolve(import.meta.dirname ?? '.', '..');

async function gzippedSize(withoutLua: boolean, runOnly = false): Promise<{ raw: number; gzip: number }> {
  const plugins = withoutLua
    ? [
        {
          name: 'no-lua',
          setup(build: esbuild.PluginBuild) {
            build.onResolve({ filter: /^#lua-vm$/ }, () => ({ path: 'fengari-stub', namespace: 'stub' }));
            build.onLoad({ filter: /.*/, namespace: 'stub' }, () => ({
              contents:
                'const handler = { get: (_, key) => (key === Symbol.toPrimitive ? () => 0 : stub), apply() { throw new Error("Lua left out of this size-measuring build"); } };' +
                'const stub = new Proxy(function () {}, handler);' +
                'export const lua = stub, lauxlib = stub, lualib = stub, lazyTables = stub, to_luastring = stub, to_jsstring = stub; export default stub;',
              loader: 'js',
            }));
          },
        },
      ]
    : [];
  const result = await esbuild.build(
    baseOptions({
      ...(runOnly
        ? {
            // What a host with pre-checked agents ships (the worker): no YAML parser, no agent checks;
            // with Lua, the sandbox it passes to compileAgent (without, it passes none).
            stdin: {
              contents:
                "export { runAgent, resumeAgent } from './src/graph/run-agent.ts'; export { compileAgent } from './src/graph/compile-agent.ts'; export { createMemoryStores } from './src/storage/memory-store.ts';" +
                (withoutLua ? '' : " export { luaSandbox } from './src/lua/lua-script-sandbox.ts';"),
              resolveDir: ROOT,
              loader: 'ts' as const,
            },
          }
        : { entryPoints: [path.join(ROOT, 'src/engine-bundle.ts')] }),
      platform: 'browser',
      minify: true,
      write: false,
      plugins,
    }),
  );
  const code = result.outputFiles![0]!.contents;
  return { raw: code.length, gzip: gzipSync(code, { level: 9 }).length };
}

export async function run() {
  const withLua = await gzippedSize(false);
  const withoutLua = await gzippedSize(true);
  const runOnlyWithoutLua = await gzippedSize(true, true);
  const runOnlyWithLua = await gzippedSize(false, true);
  const packageBundles = await measurePackageBundles(ROOT);
  return [
    ...packageBundles,
    {
      name: 'bundle: engine for browser/worker without Lua (min+gzip)',
      value: withoutLua.gzip / 1024,
      unit: 'KiB',
      baseline_value: 60,
      ratio: withoutLua.gzip / 1024 / 60,
    },
    {
      name: 'bundle: engine for browser/worker with Lua (min+gzip)',
      value: withLua.gzip / 1024,
      unit: 'KiB',
      baseline_value: 130,
      ratio: withLua.gzip / 1024 / 130,
    },
    { name: 'bundle: engine with Lua, minified, not gzipped', value: withLua.raw / 1024, unit: 'KiB' },
    {
      name: 'bundle: run-only engine (pre-checked agents, no YAML parser) without Lua',
      value: runOnlyWithoutLua.gzip / 1024,
      unit: 'KiB',
      baseline_value: 60,
      ratio: runOnlyWithoutLua.gzip / 1024 / 60,
    },
    {
      name: 'bundle: run-only engine (pre-checked agents, no YAML parser) with Lua',
      value: runOnlyWithLua.gzip / 1024,
      unit: 'KiB',
      baseline_value: 130,
      ratio: runOnlyWithLua.gzip / 1024 / 130,
    },
  ];
}
