// The build: generates the isomorphic fengari ESM, then runs every target in build/targets/
// (each exports `default async function build(context)`), in file-name order.
// Usage: node build/build.mjs [--if-stale] [target-name ...]
//   --if-stale: do nothing when dist/ was built from the current inputs (build/stamp.mjs); what
//   `npm ci`, `npm start`, `npm test` and `npm pack` run, so a clone is built once.
import { readdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';
import { clearStamp, inputHash, staleReason, writeStamp } from './stamp.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const flags = process.argv.slice(2).filter((arg) => arg.startsWith('--'));
const only = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
const unknown = flags.filter((flag) => flag !== '--if-stale');
if (unknown.length > 0) {
  console.error(`build: unknown option ${unknown[0]} (known: --if-stale)`);
  process.exit(2);
}
const started = Date.now();
const whole = only.length === 0;

if (flags.includes('--if-stale')) {
  if (!whole) {
    console.error('build: --if-stale builds everything or nothing; name no targets with it');
    process.exit(2);
  }
  const reason = await staleReason(root);
  if (reason === undefined) {
    console.error('build: dist/ is up to date (built from the current sources; `npm run build` rebuilds it)');
    process.exit(0);
  }
  console.error(`build: building dist/ (${reason})`);
}

const inputs = whole ? await inputHash(root) : undefined;
if (whole) await clearStamp(root);
const targetsDir = path.join(root, 'build', 'targets');
const files = (await readdir(targetsDir)).filter((file) => file.endsWith('.mjs')).sort();
for (const file of files) {
  const name = file.replace(/^\d+-/, '').replace(/\.mjs$/, '');
  if (!whole && !only.includes(name)) continue;
  const module = await import(pathToFileURL(path.join(targetsDir, file)).href);
  const t0 = Date.now();
  await module.default({ root, exists: (relative) => existsSync(path.join(root, relative)) });
  if (process.env.TEA_BUILD_VERBOSE) console.error(`build: ${name} ${Date.now() - t0} ms`);
}
if (whole) await writeStamp(root, inputs);
if (process.env.TEA_BUILD_VERBOSE) console.error(`build: done in ${Date.now() - started} ms`);
