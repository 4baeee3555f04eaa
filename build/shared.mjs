// Shared esbuild settings for every target.
import { etaEsbuildPlugin } from './eta-transform.mjs';

export const banner = '// tea-edge — built by build/build.mjs';

/** Options every bundle shares: ESM, ES2022, the Eta plugin, no code generation. */
export function baseOptions(extra = {}) {
  return {
    bundle: true,
    format: 'esm',
    target: 'es2022',
    logLevel: 'warning',
    legalComments: 'eof',
    ...extra,
    plugins: [etaEsbuildPlugin(), ...(extra.plugins ?? [])],
  };
}
