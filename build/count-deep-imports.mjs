// Counts the hosts' deep imports: import and export-from statements (static, type-only and dynamic)
// in worker/, cli/, adapters/ and web-demo/ that name a file under src/ other than the public
// entries (src/index.ts, src/testing/index.ts, src/host*.ts). Prints the count
// per folder and the internal paths most imported. `node build/count-deep-imports.mjs [--tests] [--top N] [--json]`; test files
// (`*.test.*`) are left out unless --tests is given.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const HOST_FOLDERS = ['worker', 'cli', 'adapters', 'web-demo'];
const PUBLIC_ENTRIES = new Set([
  'src/index.ts',
  'src/testing/index.ts',
  'src/host.ts',
  'src/host-storage.ts',
  'src/host-scripts.ts',
  'src/host-probe.ts',
]);
const SOURCE_FILE = /\.(?:m?[jt]s|tsx)$/;
const SKIPPED = new Set(['node_modules', 'dist', '.wrangler']);
/** `import … from '…'`, `export … from '…'`, `import '…'` and `import('…')`. */
const SPECIFIER = /(?:\b(?:import|export)\s[^'";]*?\bfrom\s*|\bimport\s*\(?\s*)['"]([^'"]+)['"]/g;
/** Comments, so an import quoted in a comment is not counted (strings holding `//` are rare here). */
const COMMENT = /\/\*[\s\S]*?\*\/|(^|[^:'"`])\/\/[^\n]*/g;

function parseArgs(argv) {
  const options = { tests: false, top: 25, json: false };
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index];
    if (arg === '--tests') options.tests = true;
    else if (arg === '--json') options.json = true;
    else if (arg === '--top') options.top = Number(argv[++index]);
    else
      throw new Error(
        `unknown argument '${arg}'; usage: node build/count-deep-imports.mjs [--tests] [--top N] [--json]`,
      );
  }
  if (!Number.isInteger(options.top) || options.top < 0) throw new Error('--top needs a whole number');
  return options;
}

async function sourceFiles(folder) {
  const files = [];
  for (const entry of await readdir(path.join(ROOT, folder), { withFileTypes: true })) {
    if (SKIPPED.has(entry.name)) continue;
    const relative = path.posix.join(folder, entry.name);
    if (entry.isDirectory()) files.push(...(await sourceFiles(relative)));
    else if (SOURCE_FILE.test(entry.name)) files.push(relative);
  }
  return files;
}

/** The src/ file a relative specifier names (`.js` written for a `.ts`/`.tsx` file), or undefined. */
function internalPath(file, specifier) {
  if (!specifier.startsWith('.')) return undefined;
  const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier));
  if (!target.startsWith('src/')) return undefined;
  return target.replace(/\.m?js$/, '.ts');
}

const options = parseArgs(process.argv.slice(2));
const perFolder = new Map(HOST_FOLDERS.map((folder) => [folder, { imports: 0, files: 0 }]));
const perPath = new Map();
for (const folder of HOST_FOLDERS) {
  for (const file of await sourceFiles(folder)) {
    if (!options.tests && /\.test\.[^/]+$/.test(file)) continue;
    const text = (await readFile(path.join(ROOT, file), 'utf8')).replace(COMMENT, '$1');
    let deep = 0;
    for (const match of text.matchAll(SPECIFIER)) {
      const target = internalPath(file, match[1]);
      if (target === undefined || PUBLIC_ENTRIES.has(target)) continue;
      deep++;
      perPath.set(target, (perPath.get(target) ?? 0) + 1);
    }
    const counts = perFolder.get(folder);
    counts.imports += deep;
    if (deep > 0) counts.files++;
  }
}

const total = [...perFolder.values()].reduce((sum, counts) => sum + counts.imports, 0);
const ranked = [...perPath].sort((left, right) => right[1] - left[1] || left[0].localeCompare(right[0]));
if (options.json) {
  console.log(
    JSON.stringify({
      total,
      internal_paths: perPath.size,
      folders: Object.fromEntries(perFolder),
      top: ranked.slice(0, options.top),
    }),
  );
} else {
  console.log(
    `deep imports from host folders into src/ internals${options.tests ? ' (test files included)' : ' (test files left out; --tests to include)'}`,
  );
  for (const [folder, counts] of perFolder)
    console.log(`  ${`${folder}/`.padEnd(10)} ${String(counts.imports).padStart(5)}  in ${counts.files} files`);
  console.log(`  ${'total'.padEnd(10)} ${String(total).padStart(5)}  into ${perPath.size} internal paths`);
  if (options.top > 0) {
    console.log(`most imported internal paths (top ${Math.min(options.top, ranked.length)}):`);
    for (const [target, count] of ranked.slice(0, options.top))
      console.log(`  ${String(count).padStart(5)}  ${target}`);
  }
}
