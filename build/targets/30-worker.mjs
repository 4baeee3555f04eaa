// The edge worker bundles: dist/worker/cloudflare.js (Workers) and dist/worker/deno.js (Deno
// Deploy / `deno run`), each one minified ESM file for platform "browser" with the agents inside.
// Agents come from a directory (TEA_WORKER_AGENTS, default examples/): every *.yaml / *.yml file
// is parsed and compiled with the engine's loadAgent during the build, so a broken agent fails the
// build instead of a request. The sources reach the bundle through a virtual module,
// `virtual:tea-agents` (an array of {file, source}), compiled once per isolate by the entry.
import * as esbuild from 'esbuild';
import { mkdir, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { baseOptions } from '../shared.mjs';

/** Reads every agent file of a directory, sorted by name: [{file, source}]. */
export async function readAgentSources(root, agentsDir) {
  const directory = path.resolve(root, agentsDir);
  let names;
  try {
    names = await readdir(directory);
  } catch {
    return [];
  }
  const files = names.filter((name) => /\.ya?ml$/.test(name)).sort();
  return Promise.all(files.map(async (name) => ({ file: path.relative(root, path.join(directory, name)), source: await readFile(path.join(directory, name), 'utf8') })));
}

/** Loads the engine's loadAgent for the build (bundled from source, dependencies external). */
async function engineLoader(root) {
  const outfile = path.join(root, 'dist/.build/load-agent.mjs');
  await esbuild.build(baseOptions({ entryPoints: [path.join(root, 'src/graph/run-agent.ts')], outfile, platform: 'node', packages: 'external' }));
  return import(pathToFileURL(outfile).href + `?t=${Date.now()}`);
}

/** Compiles every agent; throws one error listing every broken file and duplicate name. */
export async function checkAgents(root, sources) {
  const { loadAgent } = await engineLoader(root);
  const problems = [];
  const names = new Map();
  for (const { file, source } of sources) {
    try {
      const agent = loadAgent(source, { file });
      if (names.has(agent.name)) problems.push(`${file}: agent name '${agent.name}' is also used by ${names.get(agent.name)}`);
      names.set(agent.name, file);
    } catch (error) {
      problems.push(`${error.code ?? 'ERROR'} ${error.message}`);
    }
  }
  if (problems.length > 0) throw new Error(`worker build: ${problems.length} agent(s) failed to load:\n  ${problems.join('\n  ')}`);
  return [...names.keys()];
}

function agentsPlugin(sources) {
  return {
    name: 'tea-agents',
    setup(build) {
      build.onResolve({ filter: /^virtual:tea-agents$/ }, () => ({ path: 'tea-agents', namespace: 'tea-agents' }));
      build.onLoad({ filter: /.*/, namespace: 'tea-agents' }, () => ({ contents: `export default ${JSON.stringify(sources)};`, loader: 'js' }));
    },
  };
}

/**
 * Bundles one worker entry with the given agents (checked first). Returns the bundle text; writes
 * it to `outfile` when given.
 */
export async function bundleWorker({ root, entry = 'worker/cloudflare.ts', agentsDir = 'examples', outfile, minify = true }) {
  const sources = await readAgentSources(root, agentsDir);
  await checkAgents(root, sources);
  const result = await esbuild.build(
    baseOptions({
      entryPoints: [path.join(root, entry)],
      platform: 'browser',
      mainFields: ['module', 'browser', 'main'],
      minify,
      write: false,
      outdir: path.join(root, 'dist/worker'),
      plugins: [agentsPlugin(sources)],
    }),
  );
  const text = result.outputFiles.find((file) => file.path.endsWith('.js')).text;
  if (/\bnew Function\s*\(|[^.\w]eval\s*\(/.test(text)) throw new Error(`worker build: ${entry} contains code generation from strings (eval / new Function)`);
  if (outfile !== undefined) {
    await mkdir(path.dirname(outfile), { recursive: true });
    await import('node:fs/promises').then(({ writeFile }) => writeFile(outfile, text));
  }
  return { text, agents: sources.map((source) => source.file) };
}

export default async function build({ root, exists }) {
  if (!exists('worker/cloudflare.ts')) return;
  const agentsDir = process.env.TEA_WORKER_AGENTS ?? 'examples';
  await bundleWorker({ root, agentsDir, entry: 'worker/cloudflare.ts', outfile: path.join(root, 'dist/worker/cloudflare.js') });
  if (exists('worker/deno.ts')) await bundleWorker({ root, agentsDir, entry: 'worker/deno.ts', outfile: path.join(root, 'dist/worker/deno.js') });
}
