/** Bundles the engine + corpus runner + corpus for a worker or a page (esbuild, no code generation). */
import * as esbuild from 'esbuild';
import path from 'node:path';
// @ts-expect-error plain ESM build helper without types
import { baseOptions } from '../../build/shared.mjs';
import { readCorpus } from './corpus-cases.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

export async function bundleCorpus(kind: 'worker' | 'page'): Promise<string> {
  const cases = readCorpus().map(({ name, yaml, input }) => ({ name, yaml, input }));
  const entry =
    kind === 'worker'
      ? `import { loadAgent, runAgent } from './src/index.ts';
import { runCorpus } from './tests/corpus/corpus-runner.ts';
import cases from 'corpus:cases';
export default { async fetch() { return Response.json(await runCorpus({ loadAgent, runAgent }, cases)); } };`
      : `import { loadAgent, runAgent } from './src/index.ts';
import { runCorpus } from './tests/corpus/corpus-runner.ts';
import cases from 'corpus:cases';
runCorpus({ loadAgent, runAgent }, cases).then((results) => { globalThis.__corpus = results; }, (error) => { globalThis.__corpus = { error: String(error && error.stack || error) }; });`;
  const result = await esbuild.build(
    baseOptions({
      stdin: { contents: entry, resolveDir: ROOT, sourcefile: `corpus-${kind}.ts`, loader: 'ts' },
      platform: 'browser',
      write: false,
      minify: true,
      plugins: [
        {
          name: 'corpus-cases',
          setup(build: esbuild.PluginBuild) {
            build.onResolve({ filter: /^corpus:cases$/ }, () => ({ path: 'cases', namespace: 'corpus' }));
            build.onLoad({ filter: /.*/, namespace: 'corpus' }, () => ({
              contents: JSON.stringify(cases),
              loader: 'json',
            }));
          },
        },
      ],
    }),
  );
  return result.outputFiles![0]!.text;
}
