/**
 * The ScriptSandbox conformance checks for the Prolog sandbox inside workerd (plain Miniflare, where
 * code generation from strings is refused as in production) and headless Chromium (a page with a
 * strict CSP), bundled with the engine's esbuild settings; and in Deno from the sources (the
 * generated VM found through tests/deno/import-map.json). The same checks as in Node.
 */
import * as esbuild from 'esbuild';
import { Miniflare } from 'miniflare';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error plain ESM build helper without types
import { baseOptions } from '../../build/shared.mjs';
import { CHROMIUM, runInChromiumPage } from '../support/chromium-page.js';
import { SCRIPT_SANDBOX_CHECKS } from './script-sandbox-checks.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const IMPORTS = `
import { prologSandbox } from './src/prolog/prolog-script-sandbox.ts';
import { runScriptSandboxChecks } from './tests/conformance/script-sandbox-checks.ts';
import { PROLOG_FIXTURE } from './tests/conformance/script-sandbox-prolog-fixture.ts';
`;

type Outcomes = Array<{ name: string; error?: string }>;

async function bundle(body: string): Promise<string> {
  const result = await esbuild.build(
    baseOptions({ stdin: { contents: IMPORTS + body, resolveDir: ROOT, loader: 'ts', sourcefile: 'sandbox-conformance-entry.ts' }, platform: 'browser', write: false, minify: true }),
  );
  const script = result.outputFiles[0]!.text;
  expect(script).not.toMatch(/\beval\(|new Function\(/);
  return script;
}

function expectAllPass(outcomes: Outcomes): void {
  expect(outcomes.map((outcome) => outcome.name)).toEqual(SCRIPT_SANDBOX_CHECKS.map((check) => check.name));
  expect(outcomes.filter((outcome) => outcome.error !== undefined)).toEqual([]);
}

describe('ScriptSandbox conformance: prolog (workerd)', () => {
  it('passes every check', async () => {
    const script = await bundle('export default { fetch() { return Response.json(runScriptSandboxChecks(prologSandbox, PROLOG_FIXTURE)); } };');
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

describe.skipIf(!existsSync(CHROMIUM) && !process.env.CI)('ScriptSandbox conformance: prolog (Chromium)', () => {
  it('passes every check', async () => {
    const script = await bundle('globalThis.__checks = runScriptSandboxChecks(prologSandbox, PROLOG_FIXTURE);');
    const { value, errors } = await runInChromiumPage(script, '__checks');
    expect(errors).toEqual([]);
    expectAllPass(value as Outcomes);
  });
});

/** Runs `source` (a module read from stdin, paths relative to the repository) in Deno; its stdout. */
function runInDeno(source: string): Promise<string> {
  const child = spawn(path.join(ROOT, 'node_modules/.bin/deno'), ['run', '--quiet', '--sloppy-imports', '--import-map', 'tests/deno/import-map.json', '-'], {
    cwd: ROOT,
    env: { ...process.env, DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' },
  });
  let output = '';
  let errors = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  child.stdin.end(source);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(output) : reject(new Error(`deno exited ${code}: ${errors.slice(0, 2000)}`))));
  });
}

describe.skipIf(!existsSync(path.join(ROOT, 'node_modules/.bin/deno')) && !process.env.CI)('ScriptSandbox conformance: prolog (Deno)', () => {
  it('passes every check', async () => {
    const output = await runInDeno(`${IMPORTS}console.log(JSON.stringify(runScriptSandboxChecks(prologSandbox, PROLOG_FIXTURE)));`);
    expectAllPass(JSON.parse(output.trim().split('\n').pop()!) as Outcomes);
  }, 120_000);
});
