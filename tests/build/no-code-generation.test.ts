/**
 * The build checks itself: no shipped bundle contains code generation from strings, the engine
 * runs under `node --disallow-code-generation-from-strings`, src/ imports no Node API, and the
 * package `exports` map points at files the build produced.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const DIST = path.join(ROOT, 'dist');
const run = promisify(execFile);

function files(directory: string, filter: (file: string) => boolean): string[] {
  if (!existsSync(directory)) return [];
  return readdirSync(directory).flatMap((name) => {
    const full = path.join(directory, name);
    return statSync(full).isDirectory() ? files(full, filter) : filter(full) ? [full] : [];
  });
}

describe('the build', () => {
  it('was built (npm test builds first)', () => {
    expect(existsSync(path.join(DIST, 'index.js'))).toBe(true);
    expect(existsSync(path.join(DIST, 'cli.js'))).toBe(true);
  });

  it('no shipped bundle contains eval( or new Function', () => {
    const bundles = files(
      DIST,
      (file) => file.endsWith('.js') && !file.endsWith('bench.js') && !file.includes(`${path.sep}types${path.sep}`),
    );
    expect(bundles.length).toBeGreaterThan(3);
    const offenders = bundles.filter((file) =>
      /(^|[^.\w$])eval\(|new Function\(|\bFunction\(\s*["'`]/.test(readFileSync(file, 'utf8')),
    );
    expect(offenders).toEqual([]);
  });

  it('src/ imports no Node API and uses no code generation', () => {
    const sources = files(path.join(ROOT, 'src'), (file) => file.endsWith('.ts') && !file.endsWith('.test.ts'));
    const nodeImports = sources.filter((file) =>
      /from\s+['"](node:|fs['"]|path['"]|os['"]|child_process|http['"])/.test(readFileSync(file, 'utf8')),
    );
    expect(nodeImports).toEqual([]);
    const codegen = sources.filter((file) => /(^|[^.\w$])eval\(|new Function\(/.test(readFileSync(file, 'utf8')));
    expect(codegen).toEqual([]);
  });

  it('every exports entry of package.json exists after the build', () => {
    const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      exports: Record<string, string | { default: string }>;
    };
    const missing = Object.entries(manifest.exports)
      .map(([subpath, target]) => [subpath, typeof target === 'string' ? target : target.default] as const)
      .filter(([, target]) => !existsSync(path.join(ROOT, target)));
    expect(missing).toEqual([]);
  });

  it('the engine runs under node --disallow-code-generation-from-strings', async () => {
    const agent = path.join(ROOT, 'tests/agents/templates-actions.yaml');
    const input = JSON.stringify({ raw: '{"id": "A-1", "qty": 3}', tags: ['x'] });
    const { stdout } = await run(process.execPath, [
      '--disallow-code-generation-from-strings',
      path.join(ROOT, 'bin/tea-edge.js'),
      'run',
      agent,
      '--input',
      input,
    ]);
    const state = JSON.parse(stdout);
    expect(state.label).toBe('valid');
    expect(state.summary.data).toEqual({ who: 'ANONYMOUS', n: 6, tags: ['x'] });
    const lua = path.join(ROOT, 'tests/agents/lua-chain.yaml');
    const luaRun = await run(process.execPath, [
      '--disallow-code-generation-from-strings',
      path.join(ROOT, 'bin/tea-edge.js'),
      'run',
      lua,
      '--input',
      '{"name":"x","items":[2]}',
    ]);
    expect(JSON.parse(luaRun.stdout).sum).toBe(2);
  });
});
