import { defineConfig } from 'vitest/config';
// @ts-expect-error plain ESM build helper without types
import { etaVitePlugin } from './build/eta-transform.mjs';
// @ts-expect-error plain ESM helper without types
import { testGroup } from './tests/test-groups.mjs';

// `vitest run` runs every test; `vitest run --mode unit|workerd|browser|deno` one group
// (tests/test-groups.mjs: the files that need no runtime but Node, or the ones that need that runtime).
export default defineConfig(({ mode }) => ({
  plugins: [etaVitePlugin()],
  test: {
    include:
      mode === 'unit' || mode === 'workerd' || mode === 'browser' || mode === 'deno'
        ? (testGroup(import.meta.dirname, mode) as string[])
        : [
            'src/**/*.test.ts',
            'adapters/**/*.test.ts',
            'worker/**/*.test.ts',
            'cli/**/*.test.ts',
            'tests/**/*.test.ts',
            'web-demo/**/*.test.ts',
          ],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
    fileParallelism: true,
    maxWorkers: 2,
  },
}));
