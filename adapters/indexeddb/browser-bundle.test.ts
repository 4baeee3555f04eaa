import * as esbuild from 'esbuild';
import path from 'node:path';
import { expect, it } from 'vitest';

it('bundles for the browser with no Node imports and no code generation', async () => {
  const result = await esbuild.build({
    entryPoints: [path.join(import.meta.dirname, 'index.ts')],
    bundle: true,
    platform: 'browser',
    format: 'esm',
    write: false,
    minify: true,
    logLevel: 'silent',
  });
  const code = result.outputFiles[0]!.text;
  expect(code).not.toMatch(/from\s*["']node:|require\(["'](node:|fs|path|crypto)/);
  expect(code).not.toContain('eval(');
  expect(code).not.toContain('new Function');
  expect(code.length).toBeLessThan(40_000);
});
