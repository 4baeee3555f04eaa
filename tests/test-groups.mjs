// Which runtimes each test file needs besides Node, read from what it imports (directly or through
// the repository's own modules): Miniflare or wrangler → workerd, playwright-core → a browser
// (Chromium), tests/support/deno-binary.ts (the Deno binary) → Deno. `npm run test:unit` runs the files
// that need none; `test:workerd`, `test:browser` and `test:deno` the files that need theirs (a
// file that needs several is in each of their groups). `npm test` runs every file once.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export const RUNTIMES = ['workerd', 'browser', 'deno'];

/** The package each runtime is recognised by, or the repository module that locates it. */
const MARKERS = [
  { runtime: 'workerd', pattern: /^(miniflare|wrangler)$/ },
  { runtime: 'browser', pattern: /^playwright-core$/ },
  { runtime: 'deno', pattern: /^tests\/support\/deno-binary\.ts$/ },
];

const TEST_FOLDERS = ['src', 'adapters', 'worker', 'cli', 'tests', 'web-demo'];
const IMPORT =
  /(?:^|[\s;])(?:import|export)\s[^'"`;]*?from\s*['"]([^'"]+)['"]|(?:^|[\s;(])import\s*\(?\s*['"]([^'"]+)['"]/gm;

function testFiles(root) {
  const files = [];
  const walk = (relative) => {
    for (const entry of readdirSync(path.join(root, relative), { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
      const child = `${relative}/${entry.name}`;
      if (entry.isDirectory()) walk(child);
      else if (entry.name.endsWith('.test.ts')) files.push(child);
    }
  };
  for (const folder of TEST_FOLDERS) if (existsSync(path.join(root, folder))) walk(folder);
  return files.sort();
}

/** The repository file a relative specifier names (`./x.js` is `./x.ts` in the sources), or undefined. */
function resolveLocal(root, from, specifier) {
  const target = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier));
  const candidates = [
    target,
    target.replace(/\.js$/, '.ts'),
    target.replace(/\.js$/, '.tsx'),
    `${target}.ts`,
    `${target}/index.ts`,
  ];
  return candidates.find((candidate) => existsSync(path.join(root, candidate)));
}

/** `file`'s runtimes: the markers among its imports, and those of the local modules it imports. */
function runtimesOf(root, file, cache, visiting = new Set()) {
  if (cache.has(file)) return cache.get(file);
  if (visiting.has(file)) return new Set();
  visiting.add(file);
  const found = new Set();
  const text = readFileSync(path.join(root, file), 'utf8');
  for (const match of text.matchAll(IMPORT)) {
    const specifier = match[1] ?? match[2];
    if (specifier === undefined) continue;
    const local = specifier.startsWith('.') ? resolveLocal(root, file, specifier) : undefined;
    const named = local ?? specifier;
    for (const marker of MARKERS) if (marker.pattern.test(named)) found.add(marker.runtime);
    if (
      local !== undefined &&
      /\.(ts|tsx|mjs|js)$/.test(local) &&
      !local.startsWith('build/') &&
      !local.startsWith('node_modules/')
    ) {
      for (const runtime of runtimesOf(root, local, cache, visiting)) found.add(runtime);
    }
  }
  visiting.delete(file);
  cache.set(file, found);
  return found;
}

/** Every test file with the runtimes it needs besides Node: `[{file, runtimes: string[]}]`. */
export function classifyTests(root) {
  const cache = new Map();
  return testFiles(root).map((file) => ({ file, runtimes: [...runtimesOf(root, file, cache)].sort() }));
}

/** The files of a group: `unit` (Node only) or one of RUNTIMES. */
export function testGroup(root, group) {
  if (group !== 'unit' && !RUNTIMES.includes(group))
    throw new Error(`unknown test group "${group}" (known: unit, ${RUNTIMES.join(', ')})`);
  return classifyTests(root)
    .filter(({ runtimes }) => (group === 'unit' ? runtimes.length === 0 : runtimes.includes(group)))
    .map(({ file }) => file);
}
