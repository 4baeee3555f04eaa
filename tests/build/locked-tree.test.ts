/**
 * `npm test` runs against what the lock pins: its setup (build/ensure-deno.mjs, the build) leaves
 * node_modules as `npm ci` made it. The Deno binary goes to .cache/deno/, fetched from the
 * registry and checked against a pinned integrity; a tarball that does not match installs nothing.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error plain ESM build helper without types
import { DENO_VERSION, denoBinaryPath, denoPlatform, ensureDeno } from '../../build/deno.mjs';
import { closedPort } from '../support/closed-port.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

interface LockEntry {
  version?: string;
  optional?: boolean;
}

/** Every package folder under a node_modules directory (scoped ones as `@scope/name`), nested node_modules included. */
function installedPackages(directory: string, prefix = 'node_modules'): string[] {
  if (!existsSync(directory)) return [];
  const found: string[] = [];
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    if (entry.name.startsWith('.') || !entry.isDirectory()) continue;
    const names = entry.name.startsWith('@')
      ? readdirSync(path.join(directory, entry.name)).map((name) => `${entry.name}/${name}`)
      : [entry.name];
    for (const name of names) {
      const location = `${prefix}/${name}`;
      if (!existsSync(path.join(directory, name, 'package.json'))) continue;
      found.push(
        location,
        ...installedPackages(path.join(directory, name, 'node_modules'), `${location}/node_modules`),
      );
    }
  }
  return found;
}

describe('the locked dependency tree', () => {
  it('node_modules holds exactly the packages and versions of package-lock.json', () => {
    const locked = (
      JSON.parse(readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> }
    ).packages;
    const problems: string[] = [];
    for (const [location, entry] of Object.entries(locked)) {
      if (location === '' || !location.startsWith('node_modules/')) continue;
      const manifest = path.join(ROOT, location, 'package.json');
      if (!existsSync(manifest)) {
        if (!entry.optional) problems.push(`${location}: locked at ${entry.version}, not installed`);
        continue;
      }
      const version = (JSON.parse(readFileSync(manifest, 'utf8')) as { version?: string }).version;
      if (version !== entry.version) problems.push(`${location}: locked at ${entry.version}, installed ${version}`);
    }
    for (const location of installedPackages(path.join(ROOT, 'node_modules'))) {
      if (!(location in locked)) problems.push(`${location}: installed, not in package-lock.json`);
    }
    expect(problems, 'node_modules is not what package-lock.json pins: `npm ci` restores it').toEqual([]);
  });

  it('the Deno tests run a binary outside node_modules', () => {
    const binary = denoBinaryPath(ROOT) as string;
    expect(path.relative(ROOT, binary).split(path.sep).slice(0, 3)).toEqual(['.cache', 'deno', DENO_VERSION]);
    const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(manifest.scripts.test).toContain('node build/ensure-deno.mjs');
    expect(JSON.stringify(manifest.scripts)).not.toMatch(/npm (install|i) /);
  });
});

describe('ensureDeno', () => {
  let server: Server;
  let registry: string;
  const requests: string[] = [];
  beforeAll(async () => {
    server = createServer((request, response) => {
      requests.push(request.url ?? '');
      response.writeHead(200, { 'content-type': 'application/octet-stream' });
      response.end(Buffer.from('not the deno tarball'));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    registry = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('refuses a tarball that does not match the pinned integrity, and writes nothing', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'tea-edge-deno-'));
    try {
      const platform = denoPlatform() as string;
      await expect(ensureDeno(root, { registry, log: () => undefined })).rejects.toThrow(
        /does not match its pinned integrity/,
      );
      expect(requests).toContain(`/@deno/${platform}/-/${platform}-${DENO_VERSION}.tgz`);
      expect(await readdir(root)).toEqual([]);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it('names the URL when the registry cannot be reached', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'tea-edge-deno-'));
    try {
      const down = `http://127.0.0.1:${await closedPort()}/`;
      await expect(ensureDeno(root, { registry: down, log: () => undefined })).rejects.toThrow(
        `could not download ${down}@deno/`,
      );
      expect(await readdir(root)).toEqual([]);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it('knows a package for each platform Deno publishes, and says so for one it does not', () => {
    expect(denoPlatform('linux', 'x64')).toBe('linux-x64-glibc');
    expect(denoPlatform('darwin', 'arm64')).toBe('darwin-arm64');
    expect(() => denoPlatform('aix', 'ppc64')).toThrow(/no deno .* for aix-ppc64/);
  });
});
