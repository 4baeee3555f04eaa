/**
 * src/ type-checks from a clean checkout, with no build: the git-tracked files of src/ (never a
 * generated one, such as the Lua VM the build writes to build/generated/) are copied with the
 * tsconfig files and package.json into an empty directory and `tsc --noEmit` runs there. Every
 * file the program reads is in src/ or node_modules, and every module the engine imports exists
 * in the copy (a wildcard `declare module` would let tsc pass over a missing generated file).
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const run = promisify(execFile);
const directories: string[] = [];

afterAll(async () => {
  for (const directory of directories) await rm(directory, { recursive: true, force: true });
});

/** The tracked files of src/ and what the src/ tsconfig needs, copied into a fresh directory. */
async function cleanCheckout(): Promise<string> {
  const directory = await mkdtemp(path.join(tmpdir(), 'tea-edge-clean-src-'));
  directories.push(directory);
  const { stdout } = await run(
    'git',
    ['ls-files', '-z', '--', 'src', 'package.json', 'tsconfig.base.json', 'tsconfig.json'],
    { cwd: ROOT },
  );
  const tracked = stdout.split('\0').filter((file) => file !== '' && existsSync(path.join(ROOT, file)));
  for (const file of tracked) {
    await mkdir(path.dirname(path.join(directory, file)), { recursive: true });
    await copyFile(path.join(ROOT, file), path.join(directory, file));
  }
  await symlink(path.join(ROOT, 'node_modules'), path.join(directory, 'node_modules'), 'dir');
  return directory;
}

/** Where a relative import of `from` can be found: `x.js` is `x.ts`, `x.d.ts` or `x.js`. */
function candidates(from: string, specifier: string): string[] {
  const target = path.resolve(path.dirname(from), specifier);
  return target.endsWith('.js') ? [target.replace(/\.js$/, '.ts'), target.replace(/\.js$/, '.d.ts'), target] : [target];
}

describe('src/ from a clean checkout', () => {
  it('finds every module the engine imports, generated ones included, with no build', async () => {
    const directory = await cleanCheckout();
    const { stdout } = await run('git', ['ls-files', '--', 'src/*.ts'], { cwd: ROOT });
    const sources = stdout
      .split('\n')
      .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts') && existsSync(path.join(directory, file)));
    const packageImports =
      (
        JSON.parse(await readFile(path.join(directory, 'package.json'), 'utf8')) as {
          imports?: Record<string, { types?: string }>;
        }
      ).imports ?? {};
    const missing: string[] = [];
    for (const file of sources) {
      const text = await readFile(path.join(directory, file), 'utf8');
      for (const [, specifier] of text.matchAll(/(?:from|import)\s*'([.#][^']*)'/g)) {
        if (specifier!.startsWith('#')) {
          const types = packageImports[specifier!]?.types;
          if (types === undefined || !existsSync(path.join(directory, types)))
            missing.push(`${file}: ${specifier} (no "types" in package.json imports)`);
        } else if (!candidates(path.join(directory, file), specifier!).some((candidate) => existsSync(candidate))) {
          missing.push(`${file}: ${specifier}`);
        }
      }
    }
    expect(sources.length).toBeGreaterThan(100);
    expect(missing).toEqual([]);
  });

  it('type-checks with no build, reading no generated file', async () => {
    const directory = await cleanCheckout();
    expect(existsSync(path.join(directory, 'src/lua/lua-script-sandbox.ts'))).toBe(true);
    expect(existsSync(path.join(directory, 'build'))).toBe(false);
    const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');
    let output: string;
    try {
      output = (
        await run(process.execPath, [tsc, '-p', 'tsconfig.json', '--noEmit', '--listFilesOnly'], {
          cwd: directory,
          maxBuffer: 16 * 1024 * 1024,
        })
      ).stdout;
      await run(process.execPath, [tsc, '-p', 'tsconfig.json', '--noEmit'], {
        cwd: directory,
        maxBuffer: 16 * 1024 * 1024,
      });
    } catch (error) {
      const failure = error as { stdout?: string; stderr?: string };
      throw new Error(
        `tsc failed in a clean copy of src/:\n${(failure.stdout ?? '').slice(0, 4000)}${failure.stderr ?? ''}`,
      );
    }
    const read = output
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '');
    // Tracked files only: src/, node_modules and package.json (the engine reads its version there).
    const outside = read.filter(
      (file) =>
        !file.startsWith(path.join(directory, 'src') + '/') &&
        !file.includes('/node_modules/') &&
        file !== path.join(directory, 'package.json'),
    );
    expect(outside).toEqual([]);
    expect(read.some((file) => file.endsWith('/src/lua/fengari.d.ts'))).toBe(true);
  }, 240_000);
});
