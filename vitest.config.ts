import { defineConfig } from 'vitest/config';
// @ts-expect-error plain ESM build helper without types
import { etaVitePlugin } from './build/eta-transform.mjs';

export default defineConfig({
  plugins: [etaVitePlugin()],
  test: {
    include: ['src/**/*.test.ts', 'adapters/**/*.test.ts', 'worker/**/*.test.ts', 'cli/**/*.test.ts', 'tests/**/*.test.ts', 'web-demo/**/*.test.ts'],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
    fileParallelism: true,
    maxWorkers: 2,
  },
});
