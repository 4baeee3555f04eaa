/**
 * The ScriptSandbox conformance checks for one sandbox inside workerd (plain Miniflare, where code
 * generation from strings is refused as in production) and headless Chromium (a page with a strict
 * CSP), bundled with the engine's esbuild settings; and in Deno from the sources (a generated VM
 * found through tests/deno/import-map.json). The same checks as in Node.
 */
import * as esbuild from 'esbuild';
import { Miniflare } from 'miniflare';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error plain ESM build helper without types
import { baseOptions } from '../../build/shared.mjs';
import { CHROMIUM, runInChromiumPage } from '../support/chromium-page.js';
import { DENO_BINARY } from '../support/deno-binary.js';
import { runModuleInDeno } from '../support/deno-stdin.js';
import { SCRIPT_SANDBOX_CHECKS } from '../../src/testing/script-sandbox-checks.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

type Outcomes = Array<{ name: string; error?: string }>;

/** An export of a module of the repository, e.g. `{module: 'src/lua/lua-script-sandbox.ts', name: 'luaSandbox'}`. */
export interface ModuleExport {
  module: string;
  name: string;
}

export function describeScriptSandboxInRuntimes(language: string, sandbox: ModuleExport, fixture: ModuleExport): void {
  const imports = `
import { ${sandbox.name} as sandbox } from './${sandbox.module}';
import { runScriptSandboxChecks } from './src/testing/script-sandbox-checks.ts';
import { ${fixture.name} as fixture } from './${fixture.module}';
`;
  const bundle = async (body: string): Promise<string> => {
    const result = await esbuild.build(
      baseOptions({
        stdin: { contents: imports + body, resolveDir: ROOT, loader: 'ts', sourcefile: 'sandbox-conformance-entry.ts' },
        platform: 'browser',
        write: false,
        minify: true,
      }),
    );
    const script = result.outputFiles[0]!.text;
    expect(script).not.toMatch(/\beval\(|new Function\(/);
    return script;
  };

  describe(`ScriptSandbox conformance: ${language} (workerd)`, () => {
    it('passes every check', async () => {
      const script = await bundle(
        'export default { fetch() { return Response.json(runScriptSandboxChecks(sandbox, fixture)); } };',
      );
      const miniflare = new Miniflare({ modules: true, script, compatibilityDate: '2026-05-01' });
      try {
        const response = await miniflare.dispatchFetch('http://sandbox.test/');
        const body = await response.text();
        expect(response.status, body.slice(0, 500)).toBe(200);
        expectAllPass(JSON.parse(body) as Outcomes);
      } finally {
        await miniflare.dispose();
      }
    });
  });

  describe.skipIf(!existsSync(CHROMIUM) && !process.env.CI)(`ScriptSandbox conformance: ${language} (Chromium)`, () => {
    it('passes every check', async () => {
      const script = await bundle('globalThis.__checks = runScriptSandboxChecks(sandbox, fixture);');
      const { value, errors } = await runInChromiumPage(script, '__checks');
      expect(errors).toEqual([]);
      expectAllPass(value as Outcomes);
    });
  });

  describe.skipIf(!existsSync(DENO_BINARY) && !process.env.CI)(`ScriptSandbox conformance: ${language} (Deno)`, () => {
    it('passes every check', async () => {
      const flags = ['--sloppy-imports', '--import-map', 'tests/deno/import-map.json'];
      const output = await runModuleInDeno(
        `${imports}console.log(JSON.stringify(runScriptSandboxChecks(sandbox, fixture)));`,
        flags,
      );
      expectAllPass(JSON.parse(output.trim().split('\n').pop()!) as Outcomes);
    }, 120_000);
  });
}

function expectAllPass(outcomes: Outcomes): void {
  expect(outcomes.map((outcome) => outcome.name)).toEqual(SCRIPT_SANDBOX_CHECKS.map((check) => check.name));
  expect(outcomes.filter((outcome) => outcome.error !== undefined)).toEqual([]);
}
