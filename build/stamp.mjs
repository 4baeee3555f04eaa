// The build stamp: dist/.build-stamp.json records a hash of everything the build reads (sources,
// build scripts, examples, the lock files, the environment variables the targets read) and the
// files it wrote. `node build/build.mjs --if-stale` builds only when the hash differs or an output
// is missing or changed, so `npm ci` (prepare) builds once and `npm start`, `npm test` and
// `npm pack` reuse that dist/.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';

const STAMP = 'dist/.build-stamp.json';

/** Folders whose every file is a build input (build/generated is an output). */
const INPUT_FOLDERS = ['src', 'adapters', 'worker', 'cli', 'web-demo', 'bench', 'build', 'examples', 'bin', 'testing'];
const INPUT_FILES = [
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.base.json',
  'tsconfig.types.json',
  'tsconfig.types-node.json',
  'wrangler.toml',
];
const SKIPPED = new Set(['build/generated', 'node_modules', '.git']);
/** The environment variables build/targets/ read. */
const INPUT_VARIABLES = ['TEA_WORKER_AGENTS', 'TEA_WORKER_SCRIPTS', 'TEA_WEB_DEMO_DEBUG'];

async function filesUnder(root, relative) {
  const directory = path.join(root, relative);
  if (!existsSync(directory)) return [];
  const files = [];
  for (const entry of await readdir(directory, { withFileTypes: true })) {
    const child = path.posix.join(relative, entry.name);
    if (SKIPPED.has(child) || SKIPPED.has(entry.name)) continue;
    if (entry.isDirectory()) files.push(...(await filesUnder(root, child)));
    else if (entry.isFile()) files.push(child);
  }
  return files;
}

/** SHA-256 over the inputs' paths and contents and the build's environment variables. */
export async function inputHash(root, environment = process.env) {
  const folders = [...INPUT_FOLDERS];
  // Agents bundled into the worker from a folder outside the repository are inputs too.
  const agents = environment.TEA_WORKER_AGENTS;
  if (agents && path.relative(root, path.resolve(root, agents)).startsWith('..'))
    folders.push(path.relative(root, path.resolve(root, agents)));
  const files = [...INPUT_FILES.filter((file) => existsSync(path.join(root, file)))];
  for (const folder of folders) files.push(...(await filesUnder(root, folder)));
  const hash = createHash('sha256');
  for (const name of INPUT_VARIABLES) hash.update(`${name}=${environment[name] ?? ''}\0`);
  for (const file of files.sort()) {
    hash.update(`${file}\0`);
    hash.update(await readFile(path.join(root, file)));
    hash.update('\0');
  }
  return hash.digest('hex');
}

/** The reason dist/ must be rebuilt, or undefined when the stamp matches the inputs and the outputs are as written. */
export async function staleReason(root) {
  let stamp;
  try {
    stamp = JSON.parse(await readFile(path.join(root, STAMP), 'utf8'));
  } catch {
    return 'no build stamp (dist/ not built, or its build did not finish)';
  }
  if (stamp.inputs !== (await inputHash(root)))
    return 'the sources, build scripts, lock files or build variables changed';
  for (const [file, size] of Object.entries(stamp.outputs ?? {})) {
    const found = await stat(path.join(root, file)).catch(() => undefined);
    if (found === undefined) return `${file} is missing`;
    if (found.size !== size) return `${file} changed since the build`;
  }
  return undefined;
}

/** Forgets the stamp (a build is starting: until it finishes, dist/ is not fresh). */
export async function clearStamp(root) {
  await rm(path.join(root, STAMP), { force: true });
}

/** Records the inputs the finished build read and the outputs it wrote (the files under dist/ and build/generated/, with sizes). */
export async function writeStamp(root, inputs) {
  const outputs = {};
  for (const folder of ['dist', 'build/generated']) {
    for (const file of await filesUnder(root, folder)) {
      if (file === STAMP) continue;
      outputs[file] = (await stat(path.join(root, file))).size;
    }
  }
  await writeFile(path.join(root, STAMP), JSON.stringify({ inputs, outputs }, null, 1) + '\n');
}
