// The generated fengari bundle: no code generation from strings, no Node APIs, no package/io/
// debug libraries, every budget hook in place; and the transform fails loudly when fengari's
// source no longer matches what it patches.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
// @ts-expect-error plain ESM build helper without types
import { FORBIDDEN_CODE, patchFengariSource, patchedFiles } from '../../build/fengari-transform.mjs';

const vendorPath = fileURLToPath(new URL('../../build/generated/fengari.js', import.meta.url));
const fengariSource = (file: string) =>
  readFile(fileURLToPath(new URL(`../../node_modules/fengari/src/${file}`, import.meta.url)), 'utf8');

describe('generated build/generated/fengari.js', () => {
  it('contains no eval(, new Function, Function(, require( or process.', async () => {
    const code = await readFile(vendorPath, 'utf8');
    expect(code).not.toMatch(/\beval\s*\(/);
    expect(code).not.toMatch(/\bnew\s+Function\b/);
    expect(code).not.toMatch(/\bFunction\s*\(/);
    expect(code).not.toMatch(/\brequire\s*\(/);
    expect(code).not.toMatch(/\bprocess\./);
    for (const pattern of FORBIDDEN_CODE as RegExp[]) expect(pattern.test(code)).toBe(false);
  });

  it('leaves out the package, io and debug libraries and the bytecode loader and dumper', async () => {
    const code = await readFile(vendorPath, 'utf8');
    for (const name of ['LoadFunction', 'DumpFunction']) expect(code).not.toContain(name);
    for (const name of [
      'luaopen_package',
      'luaopen_io',
      'luaopen_debug',
      'child_process',
      'execSync',
      'tmpNameSync',
      'readline',
    ])
      expect(code).not.toContain(name);
  });

  it('carries the budget hooks', async () => {
    const code = await readFile(vendorPath, 'utf8');
    for (const hook of [
      'checkString(L, tl)',
      'checkString(L, totallen)',
      'checkString(B.L, newend)',
      'countString(L, str.length)',
      'countTableSlots(',
      'countPatternSteps(ms.L, 1)',
      'stackOverflow(L)',
      'chargeInstructions(L, 1)',
    ]) {
      expect(code).toContain(hook);
    }
  });
});

describe('build/fengari-transform.mjs', () => {
  it('patches every file it declares from the installed fengari', async () => {
    for (const file of patchedFiles as string[]) {
      expect(() => patchFengariSource(file, '')).toThrow(/fengari-transform/);
      const patched: string = patchFengariSource(file, await fengariSource(file));
      expect(patched).not.toMatch(/typeof process/);
    }
  });

  it('fails loudly when a patched pattern is missing', async () => {
    const source = (await fengariSource('lvm.js')).replace(
      'let buff = new Uint8Array(tl);',
      'let buff = new Uint8Array(tl + 0);',
    );
    expect(() => patchFengariSource('lvm.js', source)).toThrow(/concatenation size check/);
  });
});
