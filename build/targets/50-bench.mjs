// Bundles every bench/*.bench.ts into dist/bench.js (for `tea-edge bench` / `npm run bench`).
// Each bench module exports `run(): Promise<BenchResult[]>`.
import * as esbuild from 'esbuild';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { baseOptions } from '../shared.mjs';

export default async function build({ root, exists }) {
  if (!exists('bench')) return;
  const files = (await readdir(path.join(root, 'bench'))).filter((file) => file.endsWith('.bench.ts')).sort();
  const order = [
    'engine',
    'lua',
    'prolog',
    'templates',
    'llm',
    'reflection',
    'reasoning',
    'storage',
    'scale',
    'bundles',
    'worker',
    'browser',
  ];
  files.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  function rank(file) {
    const index = order.indexOf(file.replace(/\.bench\.ts$/, ''));
    return index === -1 ? order.length : index;
  }
  const imports = files.map((file, index) => `import { run as run${index} } from './${file}';`).join('\n');
  const list = files
    .map((file, index) => `{ name: ${JSON.stringify(file.replace(/\.bench\.ts$/, ''))}, run: run${index} }`)
    .join(',\n  ');
  await esbuild.build(
    baseOptions({
      stdin: {
        contents: `${imports}\nexport const suites = [\n  ${list}\n];\n`,
        resolveDir: path.join(root, 'bench'),
        sourcefile: 'bench-index.ts',
        loader: 'ts',
      },
      outfile: path.join(root, 'dist/bench.js'),
      platform: 'node',
      packages: 'external',
      banner: {
        js: "import { createRequire as __teaCreateRequire } from 'node:module'; const require = __teaCreateRequire(import.meta.url);",
      },
    }),
  );
}
