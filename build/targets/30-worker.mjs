// The edge worker bundles: dist/worker/cloudflare.js (Workers) and dist/worker/deno.js (Deno
// Deploy / `deno run`), each one minified ESM file for platform "browser" with the agents inside.
// Agents come from a directory (TEA_WORKER_AGENTS, default examples/): every *.yaml / *.yml file
// is parsed and compiled by the engine during the build (as loadAgent does), so a broken agent
// fails the build instead of a request. What reaches the bundle, through the virtual module
// `virtual:tea-agents`, is each agent's parsed spec (JSON) plus the source positions its
// compilation looked up: the worker compiles specs without shipping or running a YAML parser
// (smaller bundle, faster first request), with the same file:line:column in its messages.
// The worker pays only for what its agents use: the build records the script languages their code
// was compiled in and bundles only those sandboxes (`virtual:tea-script-sandboxes`,
// ../script-sandbox-modules.mjs), so a worker whose agents have no Lua carries no Lua VM.
import * as esbuild from 'esbuild';
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { baseOptions } from '../shared.mjs';
import { SCRIPT_LANGUAGES, sandboxesModuleSource } from '../script-sandbox-modules.mjs';

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
  return Promise.all(
    files.map(async (name) => ({
      file: path.relative(root, path.join(directory, name)),
      source: await readFile(path.join(directory, name), 'utf8'),
    })),
  );
}

/** Loads the engine's spec reader and compiler for the build (bundled from source, dependencies external). */
async function engineLoader(root) {
  // Kept out of dist/ (which is published); node_modules/.cache still resolves the dependencies.
  // One file per call: tests bundle workers in parallel processes.
  const outfile = path.join(
    root,
    `node_modules/.cache/tea-edge/agent-compiler-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}.mjs`,
  );
  await esbuild.build(
    baseOptions({
      stdin: {
        contents: [
          "export { readAgentSpec } from './src/spec/read-agent-spec.ts'; export { compileAgent } from './src/graph/compile-agent.ts'; export { createActionRegistry } from './src/builtins.ts'; export { formatAgentError, toAgentError } from './src/core/agent-error.ts';",
          sandboxesModuleSource(root, SCRIPT_LANGUAGES, 'SCRIPT_SANDBOXES'),
        ].join('\n'),
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

/** Every sandbox the build knows, each adding its language to `used` when it compiles a chunk. */
function recordingSandboxes(sandboxes, used) {
  const recording = {};
  for (const [language, sandbox] of Object.entries(sandboxes)) {
    recording[language] = {
      ...sandbox,
      compile(code, where) {
        used.add(language);
        return sandbox.compile(code, where);
      },
    };
  }
  return recording;
}

/**
 * Reads and compiles one agent the way loadAgent does, recording every source-position lookup the
 * compiler makes and the script languages its code is compiled in; returns the spec as JSON with
 * those positions ({file, spec, positions, lines}) and the languages.
 */
function prebuildAgent(engine, file, source) {
  const spec = engine.readAgentSpec(source, { file });
  const positions = {};
  const lines = {};
  const recording = {
    ...spec,
    positionOf: (agentPath) => (positions[JSON.stringify(agentPath)] = spec.positionOf(agentPath) ?? null) ?? undefined,
    contentLineOf: (agentPath) =>
      (lines[JSON.stringify(agentPath)] = spec.contentLineOf(agentPath) ?? null) ?? undefined,
  };
  const languages = new Set();
  const agent = engine.compileAgent(recording, {
    scripts: recordingSandboxes(engine.SCRIPT_SANDBOXES, languages),
    registry: engine.createActionRegistry(),
  });
  const { positionOf, contentLineOf, ...data } = spec;
  return { name: agent.name, languages, prebuilt: { file, spec: JSON.parse(JSON.stringify(data)), positions, lines } };
}

/**
 * Compiles every agent; throws one error listing every broken file and duplicate name. Returns
 * the prebuilt agents and the script languages (sorted) their code uses.
 */
export async function checkAgents(root, sources) {
  const engine = await engineLoader(root);
  const problems = [];
  const names = new Map();
  const prebuilt = [];
  const languages = new Set();
  for (const { file, source } of sources) {
    try {
      const agent = prebuildAgent(engine, file, source);
      if (names.has(agent.name))
        problems.push(`${file}: agent name '${agent.name}' is also used by ${names.get(agent.name)}`);
      names.set(agent.name, file);
      prebuilt.push(agent.prebuilt);
      for (const language of agent.languages) languages.add(language);
    } catch (error) {
      const agentError = engine.toAgentError(error, 'INVALID_AGENT', { file });
      problems.push(`${agentError.code} ${engine.formatAgentError(agentError)}`);
    }
  }
  if (problems.length > 0)
    throw new Error(`worker build: ${problems.length} agent(s) failed to load:\n  ${problems.join('\n  ')}`);
  return { prebuilt, languages: [...languages].sort() };
}

/** `virtual:tea-agents` (the prebuilt agents) and `virtual:tea-script-sandboxes` (the sandboxes of `languages`). */
function agentsPlugin(root, prebuilt, languages) {
  return {
    name: 'tea-agents',
    setup(build) {
      build.onResolve({ filter: /^virtual:tea-agents$/ }, () => ({ path: 'tea-agents', namespace: 'tea-agents' }));
      build.onLoad({ filter: /^tea-agents$/, namespace: 'tea-agents' }, () => ({
        contents: `export default ${JSON.stringify(prebuilt)};`,
        loader: 'js',
      }));
      build.onResolve({ filter: /^virtual:tea-script-sandboxes$/ }, () => ({
        path: 'tea-script-sandboxes',
        namespace: 'tea-agents',
      }));
      build.onLoad({ filter: /^tea-script-sandboxes$/, namespace: 'tea-agents' }, () => ({
        contents: sandboxesModuleSource(root, languages),
        loader: 'js',
        resolveDir: root,
      }));
    },
  };
}

// Packages whose modules do nothing when imported but define things: esbuild drops the ones the
// bundle does not use. Without this, `yaml`'s classes stay in the worker (about 34 KB minified)
// although the worker never parses YAML: agent-files.ts imports loadAgent for text sources,
// which the worker's prebuilt agents do not use.
const SIDE_EFFECT_FREE_PACKAGES = ['yaml'];

function sideEffectFreePlugin() {
  const filter = new RegExp(`^(${SIDE_EFFECT_FREE_PACKAGES.join('|')})$`);
  return {
    name: 'side-effect-free-packages',
    setup(build) {
      build.onResolve({ filter }, async (args) => {
        if (args.pluginData?.sideEffectFree === true) return undefined;
        const resolved = await build.resolve(args.path, {
          kind: args.kind,
          importer: args.importer,
          resolveDir: args.resolveDir,
          pluginData: { sideEffectFree: true },
        });
        if (resolved.errors.length > 0) return { errors: resolved.errors };
        return { path: resolved.path, sideEffects: false };
      });
    },
  };
}

// Heavy modules only some agents need, each with a stand-in the worker gets when none of its agents
// does (what the stand-in throws is typed). Loaded with a dynamic import by the engine, so the
// library and the web demo already keep them in their own chunks; the worker is one file.
const OPTIONAL_MODULES = [
  {
    feature: 'mcp',
    module: 'src/mcp/mcp-tools.ts',
    absent: 'worker/mcp-tools-absent.ts',
    usedBy: (spec) => spec.settings?.mcp !== undefined,
  },
  {
    feature: 'web.scrape',
    module: 'src/tools/html-to-text.ts',
    absent: 'worker/html-to-text-absent.ts',
    // Any mention (a node, a tool list, TEA's actions.web_scrape): a name left out would fail at run time.
    usedBy: (spec) => /web[._]scrape/.test(JSON.stringify(spec)),
  },
];

/** The features of OPTIONAL_MODULES the prebuilt agents use. */
export function usedFeatures(prebuilt) {
  return OPTIONAL_MODULES.filter((entry) => prebuilt.some((agent) => entry.usedBy(agent.spec))).map(
    (entry) => entry.feature,
  );
}

/** Loads each optional module no agent uses as its stand-in. */
function optionalModulesPlugin(root, features) {
  const absent = new Map(
    OPTIONAL_MODULES.filter((entry) => !features.includes(entry.feature)).map((entry) => [
      path.join(root, entry.module),
      path.join(root, entry.absent),
    ]),
  );
  return {
    name: 'optional-modules',
    setup(build) {
      build.onLoad({ filter: /\.ts$/ }, async (args) => {
        const standIn = absent.get(args.path);
        if (standIn === undefined) return undefined;
        return { contents: await readFile(standIn, 'utf8'), loader: 'ts', resolveDir: path.dirname(standIn) };
      });
    },
  };
}

/** The languages a worker includes: its agents' and the extra ones asked for, each checked against the known list. */
function chosenLanguages(agentLanguages, extra) {
  for (const language of extra) {
    if (!SCRIPT_LANGUAGES.includes(language))
      throw new Error(`worker build: unknown script language '${language}' (known: ${SCRIPT_LANGUAGES.join(', ')})`);
  }
  return [...new Set([...agentLanguages, ...extra])].sort();
}

/**
 * Bundles one worker entry with the given agents (checked first), the script sandboxes their code
 * uses plus the languages in `scripts` (for a host that registers more agents), and the optional
 * modules they use. Returns the bundle text, the agent files, the languages and the optional
 * features included; writes it to `outfile` when given.
 */
export async function bundleWorker({
  root,
  entry = 'worker/cloudflare/cloudflare.ts',
  agentsDir = 'examples',
  outfile,
  minify = true,
  scripts = [],
}) {
  const sources = await readAgentSources(root, agentsDir);
  const { prebuilt, languages: agentLanguages } = await checkAgents(root, sources);
  const languages = chosenLanguages(agentLanguages, scripts);
  const features = usedFeatures(prebuilt);
  const result = await esbuild.build(
    baseOptions({
      entryPoints: [path.join(root, entry)],
      platform: 'browser',
      mainFields: ['module', 'browser', 'main'],
      minify,
      write: false,
      outdir: path.join(root, 'dist/worker'),
      plugins: [agentsPlugin(root, prebuilt, languages), sideEffectFreePlugin(), optionalModulesPlugin(root, features)],
    }),
  );
  const text = result.outputFiles.find((file) => file.path.endsWith('.js')).text;
  if (/\bnew Function\s*\(|[^.\w]eval\s*\(/.test(text))
    throw new Error(`worker build: ${entry} contains code generation from strings (eval / new Function)`);
  if (outfile !== undefined) {
    await mkdir(path.dirname(outfile), { recursive: true });
    await import('node:fs/promises').then(({ writeFile }) => writeFile(outfile, text));
  }
  return { text, agents: sources.map((source) => source.file), languages, features };
}

export default async function build({ root, exists }) {
  if (!exists('worker/cloudflare/cloudflare.ts')) return;
  const agentsDir = process.env.TEA_WORKER_AGENTS ?? 'examples';
  // TEA_WORKER_SCRIPTS=lua (comma-separated) includes sandboxes the bundled agents do not use.
  const scripts = (process.env.TEA_WORKER_SCRIPTS ?? '')
    .split(',')
    .map((language) => language.trim())
    .filter(Boolean);
  await bundleWorker({
    root,
    agentsDir,
    scripts,
    entry: 'worker/cloudflare/cloudflare.ts',
    outfile: path.join(root, 'dist/worker/cloudflare.js'),
  });
  if (exists('worker/deno/deno.ts'))
    await bundleWorker({
      root,
      agentsDir,
      scripts,
      entry: 'worker/deno/deno.ts',
      outfile: path.join(root, 'dist/worker/deno.js'),
    });
}
