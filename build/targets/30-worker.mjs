// The edge worker bundles: dist/worker/cloudflare.js (Workers) and dist/worker/deno.js (Deno
// Deploy / `deno run`), each one minified ESM file for platform "browser" with the agents inside.
// Agents come from a directory (TEA_WORKER_AGENTS, default examples/): every *.yaml / *.yml file
// is parsed and compiled by the engine during the build (as loadAgent does), so a broken agent
// fails the build instead of a request. What reaches the bundle, through the virtual module
// `virtual:tea-agents`, is each agent's parsed spec (JSON) plus the source positions its
// compilation looked up: the worker compiles specs without shipping or running a YAML parser
// (smaller bundle, faster first request), with the same file:line:column in its messages.
import * as esbuild from 'esbuild';
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
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

/** Loads the engine's spec reader and compiler for the build (bundled from source, dependencies external). */
async function engineLoader(root) {
  // Kept out of dist/ (which is published); node_modules/.cache still resolves the dependencies.
  // One file per call: tests bundle workers in parallel processes.
  const outfile = path.join(root, `node_modules/.cache/tea-edge/agent-compiler-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}.mjs`);
  await esbuild.build(
    baseOptions({
      stdin: {
        contents: "export { readAgentSpec } from './src/spec/read-agent-spec.ts'; export { compileAgent } from './src/graph/compile-agent.ts'; export { toAgentError } from './src/errors/agent-error.ts'; export { ALL_SCRIPT_SANDBOXES } from './src/lua/lua-script-sandbox.ts'; export { prologSandbox } from './src/prolog/prolog-script-sandbox.ts'; export { usesProlog } from './src/prolog/load-prolog.ts';",
        resolveDir: root,
        loader: 'ts',
      },
      outfile,
      platform: 'node',
      packages: 'external',
    }),
  );
  try {
    return await import(pathToFileURL(outfile).href);
  } finally {
    await rm(outfile, { force: true });
  }
}

/**
 * Reads and compiles one agent the way loadAgent does, recording every source-position lookup the
 * compiler makes; returns the spec as JSON with those positions ({file, spec, positions, lines}).
 */
function prebuildAgent(engine, file, source) {
  const spec = engine.readAgentSpec(source, { file });
  const positions = {};
  const lines = {};
  const recording = {
    ...spec,
    positionOf: (agentPath) => (positions[JSON.stringify(agentPath)] = spec.positionOf(agentPath) ?? null) ?? undefined,
    contentLineOf: (agentPath) => (lines[JSON.stringify(agentPath)] = spec.contentLineOf(agentPath) ?? null) ?? undefined,
  };
  const scripts = engine.usesProlog(source) ? { ...engine.ALL_SCRIPT_SANDBOXES, prolog: engine.prologSandbox } : engine.ALL_SCRIPT_SANDBOXES;
  const agent = engine.compileAgent(recording, { scripts });
  const { positionOf, contentLineOf, ...data } = spec;
  return { name: agent.name, usesProlog: engine.usesProlog(source), prebuilt: { file, spec: JSON.parse(JSON.stringify(data)), positions, lines } };
}

/** Compiles every agent; throws one error listing every broken file and duplicate name. */
export async function checkAgents(root, sources) {
  const engine = await engineLoader(root);
  const problems = [];
  const names = new Map();
  const prebuilt = [];
  for (const { file, source } of sources) {
    try {
      const agent = prebuildAgent(engine, file, source);
      if (names.has(agent.name)) problems.push(`${file}: agent name '${agent.name}' is also used by ${names.get(agent.name)}`);
      names.set(agent.name, file);
      prebuilt.push(agent.prebuilt);
      if (agent.usesProlog) prebuilt.usesProlog = true;
    } catch (error) {
      const agentError = engine.toAgentError(error, 'INVALID_AGENT', { file });
      problems.push(`${agentError.code} ${agentError.message}`);
    }
  }
  if (problems.length > 0) throw new Error(`worker build: ${problems.length} agent(s) failed to load:\n  ${problems.join('\n  ')}`);
  return prebuilt;
}

/**
 * `virtual:tea-scripts`: the Lua sandbox, plus the Prolog sandbox (tau-prolog, ~53 KB gzipped)
 * only when a bundled agent uses Prolog, so a worker without Prolog agents carries none of it.
 */
function scriptsModule(root, withProlog) {
  const lua = JSON.stringify(path.join(root, 'src/lua/lua-script-sandbox.ts'));
  if (!withProlog) return `export { ALL_SCRIPT_SANDBOXES as default } from ${lua};`;
  const prolog = JSON.stringify(path.join(root, 'src/prolog/prolog-script-sandbox.ts'));
  return `import { ALL_SCRIPT_SANDBOXES } from ${lua}; import { prologSandbox } from ${prolog}; export default Object.freeze({ ...ALL_SCRIPT_SANDBOXES, prolog: prologSandbox });`;
}

function agentsPlugin(prebuilt, root) {
  return {
    name: 'tea-agents',
    setup(build) {
      build.onResolve({ filter: /^virtual:tea-scripts$/ }, () => ({ path: 'tea-scripts', namespace: 'tea-scripts' }));
      build.onLoad({ filter: /.*/, namespace: 'tea-scripts' }, () => ({ contents: scriptsModule(root, prebuilt.usesProlog === true), loader: 'js', resolveDir: root }));
      build.onResolve({ filter: /^virtual:tea-agents$/ }, () => ({ path: 'tea-agents', namespace: 'tea-agents' }));
      build.onLoad({ filter: /.*/, namespace: 'tea-agents' }, () => ({ contents: `export default ${JSON.stringify(prebuilt)};`, loader: 'js' }));
    },
  };
}

/**
 * Bundles one worker entry with the given agents (checked first). Returns the bundle text; writes
 * it to `outfile` when given.
 */
export async function bundleWorker({ root, entry = 'worker/cloudflare.ts', agentsDir = 'examples', outfile, minify = true }) {
  const sources = await readAgentSources(root, agentsDir);
  const prebuilt = await checkAgents(root, sources);
  const result = await esbuild.build(
    baseOptions({
      entryPoints: [path.join(root, entry)],
      platform: 'browser',
      mainFields: ['module', 'browser', 'main'],
      minify,
      write: false,
      outdir: path.join(root, 'dist/worker'),
      plugins: [agentsPlugin(prebuilt, root)],
    }),
  );
  const text = result.outputFiles.find((file) => file.path.endsWith('.js')).text;
  if (/\bnew Function\s*\(|[^.\w]eval\s*\(/.test(text)) throw new Error(`worker build: ${entry} contains code generation from strings (eval / new Function)`);
  if (outfile !== undefined) {
    await mkdir(path.dirname(outfile), { recursive: true });
    await import('node:fs/promises').then(({ writeFile }) => writeFile(outfile, text));
  }
  return { text, agents: sources.map((source) => source.file), usesProlog: prebuilt.usesProlog === true };
}

export default async function build({ root, exists }) {
  if (!exists('worker/cloudflare.ts')) return;
  const agentsDir = process.env.TEA_WORKER_AGENTS ?? 'examples';
  await bundleWorker({ root, agentsDir, entry: 'worker/cloudflare.ts', outfile: path.join(root, 'dist/worker/cloudflare.js') });
  if (exists('worker/deno.ts')) await bundleWorker({ root, agentsDir, entry: 'worker/deno.ts', outfile: path.join(root, 'dist/worker/deno.js') });
}
