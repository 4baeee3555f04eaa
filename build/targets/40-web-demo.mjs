// The web demo: static files in dist/web-demo/. The page (app.js, the editor split into a lazy
// chunk), the engine Web Worker (engine-worker.js), the service worker (sw.js) with the list of
// files to cache, the manifest, icon and styles. Example agents and the agent JSON Schema are
// embedded at build time. Writes build-report.json with the gzipped sizes.
import * as esbuild from 'esbuild';
import { copyFile, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import path from 'node:path';
import { baseOptions } from '../shared.mjs';

const STATIC_FILES = ['index.html', 'styles.css', 'manifest.webmanifest', 'icon.svg'];

/** Resolves `virtual:examples` and `virtual:agent-schema` to build-time modules. */
function virtualModules(root) {
  return {
    name: 'tea-edge-web-demo-virtual',
    setup(build) {
      build.onResolve({ filter: /^virtual:/ }, (args) => ({ path: args.path, namespace: 'tea-virtual' }));
      // Until the IndexedDB adapter exists the demo builds without history (it says so in the UI).
      build.onResolve({ filter: /adapters\/indexeddb\/index\.js$/ }, () =>
        existsSync(path.join(root, 'adapters/indexeddb/index.ts'))
          ? undefined
          : { path: 'virtual:no-indexeddb', namespace: 'tea-virtual' },
      );
      build.onLoad({ filter: /.*/, namespace: 'tea-virtual' }, async (args) => {
        if (args.path === 'virtual:examples') {
          const directory = path.join(root, 'examples');
          let files = [];
          try {
            files = (await readdir(directory)).filter((file) => /\.ya?ml$/.test(file)).sort();
          } catch {
            files = [];
          }
          const examples = [];
          for (const file of files) examples.push({ file, source: await readFile(path.join(directory, file), 'utf8') });
          return { contents: `export default ${JSON.stringify(examples)};`, loader: 'js', watchDirs: [directory] };
        }
        if (args.path === 'virtual:agent-schema') {
          let schema = '{}';
          try {
            schema = await readFile(path.join(root, 'src/spec/agent-schema.json'), 'utf8');
          } catch {
            schema = '{}';
          }
          return { contents: schema, loader: 'json' };
        }
        if (args.path === 'virtual:no-indexeddb') {
          return {
            contents:
              "export function createIndexedDbStores() { throw new Error('this build has no IndexedDB adapter'); }",
            loader: 'js',
          };
        }
        return undefined;
      });
    },
  };
}

/** Output files reachable from `entry` through static imports (what the browser loads at once). */
function staticClosure(metafile, entry) {
  return reachableFrom(metafile, entry, (imported) => imported.kind === 'import-statement');
}

/** Output files reachable from `entry` through the imports `follow` accepts (all: dynamic ones too). */
function reachableFrom(metafile, entry, follow = () => true) {
  const seen = new Set();
  const visit = (file) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const imported of metafile.outputs[file]?.imports ?? [])
      if (!imported.external && follow(imported)) visit(imported.path);
  };
  visit(entry);
  return seen;
}

export default async function build(context) {
  if (!context.exists('web-demo/app.ts')) return;
  try {
    await buildWebDemo(context);
  } catch (error) {
    // While the engine's parts are still landing, a broken web-demo build must not stop the other
    // targets; under CI it fails the build.
    if (process.env.CI) throw error;
    console.error(`build: web-demo not built: ${String(error.message ?? error).split('\n')[0]}`);
  }
}

async function buildWebDemo({ root }) {
  // Built beside the target and swapped in at the end, so a failed build leaves the last good one.
  const finalDir = path.join(root, 'dist/web-demo');
  const outdir = path.join(root, `dist/.web-demo-${process.pid}`);
  await rm(outdir, { recursive: true, force: true });
  await mkdir(outdir, { recursive: true });
  try {
    await writeWebDemo(root, outdir);
  } catch (error) {
    await rm(outdir, { recursive: true, force: true });
    throw error;
  }
  await rm(finalDir, { recursive: true, force: true });
  await rename(outdir, finalDir);
}

async function writeWebDemo(root, outdir) {
  const common = {
    absWorkingDir: root,
    platform: 'browser',
    // TEA_WEB_DEMO_DEBUG=1: readable output with inline source maps, for debugging in a browser.
    minify: !process.env.TEA_WEB_DEMO_DEBUG,
    metafile: true,
    sourcemap: process.env.TEA_WEB_DEMO_DEBUG ? 'inline' : false,
    mainFields: ['browser', 'module', 'main'],
    conditions: ['browser'],
    define: { 'process.env.NODE_ENV': '"production"' },
    // The page's views are Preact components written in JSX (web-demo/*.tsx).
    jsx: 'automatic',
    jsxImportSource: 'preact',
    plugins: [virtualModules(root)],
  };
  // The page, then both engine workers in one build, so a module the two workers share is one
  // chunk under one name (built apart, each wrote it into chunks/ under its own hash). The page
  // stays a build of its own: sharing chunks with the workers splits its first load into more,
  // smaller files, which costs more than it saves. The light worker (loaded at start) is given no script sandbox, so it carries no Lua VM; the
  // full one, loaded only for agents that use Lua or Prolog, is given the sandboxes. What agents
  // load on demand (the MCP client, docs/mcp.md; the Prolog engine) stays out of the first load
  // in lazy chunks: module workers import chunks like pages do.
  const page = await esbuild.build(
    baseOptions({
      ...common,
      entryPoints: { app: path.join(root, 'web-demo/app.ts') },
      outdir,
      splitting: true,
      entryNames: '[name]',
      chunkNames: 'chunks/[name]-[hash]',
    }),
  );
  const workers = await esbuild.build(
    baseOptions({
      ...common,
      entryPoints: {
        'engine-worker': path.join(root, 'web-demo/engine-worker.ts'),
        'engine-worker-lua': path.join(root, 'web-demo/engine-worker-lua.ts'),
      },
      outdir,
      splitting: true,
      entryNames: '[name]',
      chunkNames: 'chunks/[name]-[hash]',
    }),
  );
  for (const file of STATIC_FILES) await copyFile(path.join(root, 'web-demo', file), path.join(outdir, file));

  const relative = (file) => path.relative(outdir, path.resolve(root, file)).split(path.sep).join('/');
  const gzipped = async (file) => gzipSync(await readFile(path.join(outdir, file)), { level: 9 }).length;
  const entryOutput = (metafile, name) => Object.keys(metafile.outputs).find((file) => file.endsWith(`/${name}.js`));
  const closure = (metafile, name) => [...staticClosure(metafile, entryOutput(metafile, name))].map(relative);
  const reachable = (metafile, name) =>
    [...reachableFrom(metafile, entryOutput(metafile, name))].map(relative).filter((file) => file.endsWith('.js'));
  const firstLoadPage = closure(page.metafile, 'app');
  const allPage = reachable(page.metafile, 'app');
  const lazy = allPage.filter((file) => !firstLoadPage.includes(file));
  const workerFiles = closure(workers.metafile, 'engine-worker');
  const workerLazy = reachable(workers.metafile, 'engine-worker').filter((file) => !workerFiles.includes(file));
  const luaWorkerFiles = reachable(workers.metafile, 'engine-worker-lua');
  const allFiles = [
    ...new Set([
      ...allPage,
      ...Object.keys(workers.metafile.outputs)
        .filter((file) => file.endsWith('.js'))
        .map(relative),
    ]),
  ];

  const shellFiles = [...STATIC_FILES, ...allFiles, './'];
  const contents = await Promise.all(
    shellFiles.filter((file) => file !== './').map((file) => readFile(path.join(outdir, file))),
  );
  const version = createHash('sha256');
  for (const content of contents) version.update(content);
  await esbuild.build(
    baseOptions({
      entryPoints: { sw: path.join(root, 'web-demo/sw.ts') },
      outdir,
      platform: 'browser',
      minify: true,
      define: {
        __PRECACHE__: JSON.stringify(shellFiles),
        __CACHE_NAME__: JSON.stringify(`tea-edge-shell-${version.digest('hex').slice(0, 16)}`),
      },
    }),
  );

  const sizes = {};
  for (const file of [...STATIC_FILES, ...allFiles]) sizes[file] = await gzipped(file);
  const firstLoad = [...new Set([...firstLoadPage, ...workerFiles])];
  const sum = (files) => files.reduce((total, file) => total + (sizes[file] ?? 0), 0);
  const report = {
    first_load_js_gzip_bytes: sum(firstLoad),
    first_load_files: firstLoad,
    ui_js_gzip_bytes: sum(firstLoadPage),
    engine_worker_js_gzip_bytes: sum(workerFiles),
    engine_worker_lazy_js_gzip_bytes: sum(workerLazy),
    engine_worker_lazy_files: workerLazy,
    lua_engine_worker_js_gzip_bytes: sum(luaWorkerFiles),
    editor_js_gzip_bytes: sum(lazy),
    editor_files: lazy,
    files_gzip_bytes: sizes,
  };
  await writeFile(path.join(outdir, 'build-report.json'), JSON.stringify(report, null, 2) + '\n');
}
