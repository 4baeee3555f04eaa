/**
 * Package hygiene: what `npm publish` would ship. A license, third-party notices for the code the
 * bundles embed (patched fengari above all), no benchmark harness, caret ranges for runtime
 * dependencies, and a repository field.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  repository?: { url?: string };
  homepage?: string;
  dependencies: Record<string, string>;
};

describe('the published package', () => {
  it('has a license file and says where it comes from', () => {
    expect(readFileSync(path.join(ROOT, 'LICENSE'), 'utf8')).toMatch(/^MIT License/);
    expect(manifest.repository?.url).toMatch(/^git\+https:\/\//);
    expect(manifest.homepage).toMatch(/^https:\/\//);
  });

  it('accepts compatible updates of its runtime dependencies (caret ranges)', () => {
    const exact = Object.entries(manifest.dependencies).filter(([, range]) => !range.startsWith('^'));
    expect(exact).toEqual([]);
  });

  it('ships the notices and the license, and no benchmark harness', async () => {
    const { stdout } = await promisify(execFile)('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: ROOT,
      maxBuffer: 16 * 1024 * 1024,
    });
    const [pack] = JSON.parse(stdout) as Array<{ files: Array<{ path: string }> }>;
    const shipped = pack!.files.map((file) => file.path);
    expect(shipped).toContain('LICENSE');
    expect(shipped).toContain('dist/THIRD_PARTY_NOTICES.md');
    expect(shipped).toContain('dist/cli.js');
    expect(shipped.filter((file) => file.includes('bench'))).toEqual([]);
  }, 60_000);

  it('keeps the fengari license notice in every bundle that embeds the patched VM', () => {
    const notices = readFileSync(path.join(ROOT, 'dist/THIRD_PARTY_NOTICES.md'), 'utf8');
    for (const name of ['fengari', 'yaml', '@huggingface/jinja', '@cfworker/json-schema', 'hono'])
      expect(notices).toContain(`## ${name} `);
    const bundles = [
      'dist/cli.js',
      'dist/engine.browser.js',
      'dist/worker/cloudflare.js',
      'dist/web-demo/engine-worker-lua.js',
    ];
    for (const bundle of bundles.filter((file) => existsSync(path.join(ROOT, file)))) {
      const code = readFileSync(path.join(ROOT, bundle), 'utf8');
      if (!code.includes('luaL_newstate') && !code.includes('lua_newstate')) continue;
      expect(code, bundle).toMatch(/fengari [\d.]+, patched by tea-edge\. MIT License/);
    }
  });
});
