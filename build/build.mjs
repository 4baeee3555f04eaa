// The build: generates the isomorphic fengari ESM, then runs every target in build/targets/
// (each exports `default async function build(context)`), in file-name order.
// Usage: node build/build.mjs [target-name ...]
import { readdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const only = process.argv.slice(2);
const started = Date.now();

const targetsDir = path.join(root, 'build', 'targets');
const files = (await readdir(targetsDir)).filter((file) => file.endsWith('.mjs')).sort();
for (const file of files) {
  const name = file.replace(/^\d+-/, '').replace(/\.mjs$/, '');
  if (only.length > 0 && !only.includes(name)) continue;
  const module = await import(pathToFileURL(path.join(targetsDir, file)).href);
  const t0 = Date.now();
  await module.default({ root, exists: (relative) => existsSync(path.join(root, relative)) });
  if (process.env.TEA_BUILD_VERBOSE) console.error(`build: ${name} ${Date.now() - t0} ms`);
}
if (process.env.TEA_BUILD_VERBOSE) console.error(`build: done in ${Date.now() - started} ms`);
