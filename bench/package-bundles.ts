/**
 * What a library user's browser bundle weighs: the packed tarball (`npm pack` of the built
 * package) installed into a scratch folder, and an esbuild browser bundle (minified, split) of an
 * entry importing from `tea-edge` per use. Reported per use, gzip level 9, in KB: what the entry
 * loads at start (its static imports), and every file of the bundle (lazy chunks too). KB = 1000 bytes.
 *
 * Uses and targets (KB gzip, minified; docs/architecture.md, "What to import"):
 *   run: compiled agents that use llm.call and templates: `tea-edge/engine`'s compileAgent (a spec
 *     checked at build time, as the worker ships them), runAgent, stores, createProvider, and the
 *     llm.* actions (`tea-edge/actions/llm`); no YAML parser, no agent-schema checks (≤ 100);
 *   + loadAgent: the same with YAML loading and validation (`tea-edge/engine`'s loadAgent) (≤ 140);
 *   + reflection and reasoning: their action sets (`tea-edge/reflection`, `tea-edge/reasoning`)
 *     and reviewRun (≤ 170);
 *   everything: every export of the main entry `tea-edge` (every action, Lua) + the IndexedDB
 *     adapter (≤ 250).
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';
import type { BenchResult } from './bench-result.js';

const run = promisify(execFile);

const ENGINE =
  "import { runAgent, createRegistry, createMemoryStores, createProvider } from 'tea-edge/engine'; import { llmActions } from 'tea-edge/actions/llm';";

export const PACKAGE_USES: ReadonlyArray<{ name: string; target: number; entry: string }> = [
  {
    name: 'run compiled agents (engine, llm actions)',
    target: 100,
    entry: `${ENGINE} import { compileAgent } from 'tea-edge/engine'; globalThis.tea = { compileAgent, runAgent, createRegistry, createMemoryStores, createProvider, llmActions };`,
  },
  {
    name: '+ loadAgent (YAML, validation)',
    target: 140,
    entry: `${ENGINE} import { loadAgent } from 'tea-edge/engine'; globalThis.tea = { loadAgent, runAgent, createRegistry, createMemoryStores, createProvider, llmActions };`,
  },
  {
    name: '+ reflection and reasoning',
    target: 170,
    entry:
      `${ENGINE} import { loadAgent } from 'tea-edge/engine'; import { reflectionActions, reviewRun } from 'tea-edge/reflection'; import { reasoningActions } from 'tea-edge/reasoning';` +
      ' globalThis.tea = { loadAgent, runAgent, createRegistry, createMemoryStores, createProvider, llmActions, reflectionActions, reviewRun, reasoningActions };',
  },
  {
    name: 'everything (tea-edge) + IndexedDB adapter',
    target: 250,
    entry:
      "import * as tea from 'tea-edge'; import * as idb from 'tea-edge/adapters/indexeddb'; globalThis.tea = { tea, idb };",
  },
];

/** Packs the package at `root` (dist/ must be built) and installs the tarball into a scratch folder; returns the folder. */
export async function installPackedTarball(root: string): Promise<string> {
  const directory = await mkdtemp(path.join(tmpdir(), 'tea-edge-package-bundles-'));
  const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', directory], {
    cwd: root,
    maxBuffer: 16 * 1024 * 1024,
  });
  const [packed] = JSON.parse(stdout) as Array<{ filename: string }>;
  const modules = path.join(directory, 'node_modules');
  await mkdir(modules, { recursive: true });
  await run('tar', ['xzf', path.join(directory, packed!.filename), '-C', directory]);
  await run('mv', [path.join(directory, 'package'), path.join(modules, 'tea-edge')]);
  // The runtime dependencies, as an install would bring them (the repository's locked copies).
  const manifest = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  for (const name of Object.keys(manifest.dependencies)) {
    await mkdir(path.dirname(path.join(modules, name)), { recursive: true });
    await symlink(path.join(root, 'node_modules', name), path.join(modules, name));
  }
  return directory;
}

/** Output files reachable from `entry` (static imports only, or every import). */
function reachable(metafile: esbuild.Metafile, entry: string, staticOnly: boolean): string[] {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const imported of metafile.outputs[file]?.imports ?? [])
      if (!imported.external && (!staticOnly || imported.kind === 'import-statement')) visit(imported.path);
  };
  visit(entry);
  return [...seen];
}

/** A user's browser bundle of `entry` (importing from the installed tarball in `directory`): each output's text and gzip size, and which load at start. */
export async function bundleFromPackage(
  directory: string,
  entry: string,
  name: string,
): Promise<Array<{ file: string; text: string; gzip: number; atStart: boolean }>> {
  const outdir = path.join(directory, 'out', name);
  const built = await esbuild.build({
    stdin: { contents: entry, resolveDir: directory, sourcefile: 'entry.js', loader: 'js' },
    absWorkingDir: directory,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    outdir,
    entryNames: 'entry',
    metafile: true,
    write: false,
    logLevel: 'silent',
  });
  const entryFile = Object.keys(built.metafile.outputs).find((file) => file.endsWith('/entry.js'))!;
  const atStart = new Set(reachable(built.metafile, entryFile, true));
  return built.outputFiles.map((output) => {
    const file = path.relative(directory, output.path).split(path.sep).join('/');
    return {
      file,
      text: output.text,
      gzip: gzipSync(output.contents, { level: 9 }).length,
      atStart: atStart.has(file),
    };
  });
}

export async function measurePackageBundles(root: string): Promise<BenchResult[]> {
  const directory = await installPackedTarball(root);
  try {
    const results: BenchResult[] = [];
    for (const use of PACKAGE_USES) {
      const outputs = await bundleFromPackage(directory, use.entry, String(results.length));
      const sum = (files: typeof outputs) => files.reduce((total, output) => total + output.gzip, 0) / 1000;
      const atStart = sum(outputs.filter((output) => output.atStart));
      results.push({
        name: `package: ${use.name}, at start`,
        value: atStart,
        unit: 'KB',
        baseline_value: use.target,
        ratio: atStart / use.target,
      });
      results.push({ name: `package: ${use.name}, all chunks`, value: sum(outputs), unit: 'KB' });
    }
    return results;
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}
