// re2js (the linear-time regex engine used for agent-supplied patterns) has a prefilter class
// with a method named `eval`. It is not code generation, but every bundle is scanned for the
// text `eval(`, so the method is renamed when bundling. Fails loudly if re2js changes shape.
import { readFile } from 'node:fs/promises';

const EXPECTED_RENAMES = 4; // the definition and three calls

export function re2jsEsbuildPlugin() {
  return {
    name: 're2js-rename-eval-method',
    setup(build) {
      build.onLoad({ filter: /[\\/]re2js[\\/]build[\\/]index\.js$/ }, async (args) => {
        const source = await readFile(args.path, 'utf8');
        let renames = 0;
        const contents = source.replace(/\beval\(/g, () => {
          renames += 1;
          return 'evaluateFilter(';
        });
        if (renames !== EXPECTED_RENAMES) throw new Error(`re2js: expected ${EXPECTED_RENAMES} 'eval(' method sites, found ${renames}; review build/re2js-transform.mjs`);
        return { contents, loader: 'js' };
      });
    },
  };
}
