/**
 * The declarations the package ships resolve inside the tarball: every import of every shipped
 * .d.ts names a shipped file (relative), a `#` import whose `types` target is shipped, a runtime
 * or peer dependency (vitest, for the conformance suites of tea-edge/testing), or a Node
 * built-in. (The `.d.ts` files under dist/types/src/lua and /prolog import `#lua-vm` /
 * `#prolog-vm`, whose declaration files were not in the tarball.)
 */
import { execFile } from 'node:child_process';
import { builtinModules } from 'node:module';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  imports: Record<string, { types?: string }>;
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  exports: Record<string, unknown>;
  type?: string;
};
const SPECIFIER = /(?:^|\s)(?:import|export)\b[^'";]*?\bfrom\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/gm;

/** The package a bare specifier names (`@scope/name/sub` → `@scope/name`). */
const packageOf = (specifier: string) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

describe('the shipped type declarations', () => {
  it('import only what the tarball or the runtime dependencies hold', async () => {
    const { stdout } = await promisify(execFile)('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: ROOT,
      maxBuffer: 16 * 1024 * 1024,
    });
    const shipped = new Set(
      (JSON.parse(stdout) as Array<{ files: Array<{ path: string }> }>)[0]!.files.map((file) => file.path),
    );
    const declarations = [...shipped].filter((file) => file.endsWith('.d.ts'));
    expect(declarations.length).toBeGreaterThan(50);
    const broken: string[] = [];
    for (const file of declarations) {
      const text = readFileSync(path.join(ROOT, file), 'utf8');
      for (const match of text.matchAll(SPECIFIER)) {
        const specifier = (match[1] ?? match[2])!;
        if (specifier.startsWith('.')) {
          const target = path.posix
            .normalize(path.posix.join(path.posix.dirname(file), specifier))
            .replace(/\.js$/, '');
          if (![`${target}.d.ts`, `${target}/index.d.ts`, target].some((candidate) => shipped.has(candidate)))
            broken.push(`${file}: ${specifier}`);
        } else if (specifier.startsWith('#')) {
          const types = manifest.imports[specifier]?.types;
          if (types === undefined || !shipped.has(types.replace(/^\.\//, '')))
            broken.push(`${file}: ${specifier} (types ${types ?? 'none'})`);
        } else if (
          !specifier.startsWith('node:') &&
          !builtinModules.includes(specifier) &&
          packageOf(specifier) !== 'tea-edge' &&
          !(packageOf(specifier) in manifest.dependencies) &&
          !(packageOf(specifier) in manifest.peerDependencies)
        ) {
          broken.push(`${file}: ${specifier} (not a runtime or peer dependency)`);
        }
      }
    }
    expect(broken).toEqual([]);
  }, 60_000);

  it('is ESM only, and says so', () => {
    expect(manifest.type).toBe('module');
    for (const target of Object.values(manifest.exports))
      if (typeof target === 'object' && target !== null) expect(Object.keys(target)).not.toContain('require');
    expect(readFileSync(path.join(ROOT, 'README.md'), 'utf8')).toMatch(/ESM only/);
  });
});
