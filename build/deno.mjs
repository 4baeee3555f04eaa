// The `deno` binary the Deno tests and benchmarks run: Deno's own per-platform npm package, fetched
// as a tarball from the npm registry, checked against the integrity pinned below and unpacked into
// .cache/deno/<version>/ (git-ignored). The project's node_modules is never touched, so after
// `npm test` it is still exactly what `npm ci` installed from the lock file. (The `deno` package
// itself cannot be in the lock: it lists six optional platform packages, and a registry mirror
// that lacks one makes `npm ci` fail.)
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';

export const DENO_VERSION = '2.9.6';

/** `dist.integrity` of each @deno/<platform>@DENO_VERSION, as the registry publishes it. */
const PLATFORMS = {
  'linux-x64-glibc': 'sha512-3md4TKLCuzsLDmfOoC5KN7NAZaxSVkMgm64vg6foD00JBADCpYS2/5QqXfzgnP5ZQz3iLP9vBQJtEgc116OAoQ==',
  'linux-arm64-glibc':
    'sha512-poqhoH9B3nYloigEMPT5t8HY+wBeiuea1An5Q7fqgJzP0SYmWsoS/oUnWO/pEiA4ofzIBy1Elt/in58xKtxEoQ==',
  'darwin-x64': 'sha512-tPi3CWPRdjW1MaWlvWjORE7Ass5SADdWdj1BF1Q1PEdzi+5u/mC5YhmZzniMiPr81PpaFeqjXaLAsfb8lFsZ0Q==',
  'darwin-arm64': 'sha512-V8uO1Aolrl/yvdMb5lOtgtigs8YuZBjrOrgviVMiYkQ0swymFfzkae1wZak4Xi24t7vf7d/eiMb/7ryjjVm+tg==',
  'win32-x64': 'sha512-qRGnmVz/Ea6UWPht/S3xFRK17UZ/ls38DSVfgGB17fpASLxPkksqzWUI/BzL9YYoOknYzfc94mySGyInZu/JXw==',
  'win32-arm64': 'sha512-iHSHs89g2Uy6k0bGHmXkgzTIW8WXImYPpvqRRO/zNsK1/N79PcjvAth1TuQatuIALcLdocstPs/PAYtndbfr0A==',
};

/** The platform package this machine needs, e.g. `linux-x64-glibc`; throws for one Deno does not publish. */
export function denoPlatform(platform = process.platform, arch = process.arch) {
  const name = platform === 'linux' ? `linux-${arch}-glibc` : `${platform}-${arch}`;
  if (!(name in PLATFORMS))
    throw new Error(
      `no deno ${DENO_VERSION} package for ${platform}-${arch} (known: ${Object.keys(PLATFORMS).join(', ')})`,
    );
  return name;
}

/** Where the binary lives once installed (whether or not it is there yet). */
export function denoBinaryPath(root) {
  return path.join(root, '.cache', 'deno', DENO_VERSION, process.platform === 'win32' ? 'deno.exe' : 'deno');
}

/**
 * Installs the binary into .cache/deno/<version>/ unless it is there; returns its path.
 * `registry` defaults to the one npm is configured with (npm passes it to scripts).
 */
export async function ensureDeno(
  root,
  { registry = process.env.npm_config_registry || 'https://registry.npmjs.org/', log = console.error } = {},
) {
  const binary = denoBinaryPath(root);
  if (existsSync(binary)) return binary;
  const platform = denoPlatform();
  const url = `${registry.replace(/\/?$/, '/')}@deno/${platform}/-/${platform}-${DENO_VERSION}.tgz`;
  log(
    `installing deno ${DENO_VERSION} for the Deno tests into ${path.relative(root, path.dirname(binary))} (from ${url})`,
  );
  let response;
  try {
    response = await fetch(url);
  } catch (error) {
    throw new Error(`could not download ${url}: ${error.cause?.message ?? error.message}`);
  }
  if (!response.ok) throw new Error(`could not download ${url}: HTTP ${response.status}`);
  const tarball = Buffer.from(await response.arrayBuffer());
  const expected = PLATFORMS[platform];
  const actual = `sha512-${createHash('sha512').update(tarball).digest('base64')}`;
  if (actual !== expected)
    throw new Error(
      `${url} does not match its pinned integrity (expected ${expected}, got ${actual}); nothing installed`,
    );
  const wanted = `package/${path.basename(binary)}`;
  const content = tarEntry(gunzipSync(tarball), wanted);
  if (content === undefined) throw new Error(`${url} holds no ${wanted}`);
  // Written beside the target and renamed, so an interrupted install never leaves half a binary.
  await mkdir(path.dirname(binary), { recursive: true });
  const partial = `${binary}.${process.pid}.partial`;
  try {
    await writeFile(partial, content);
    await chmod(partial, 0o755);
    await rename(partial, binary);
  } finally {
    await rm(partial, { force: true });
  }
  return binary;
}

/** The content of the regular file `name` in an uncompressed tar archive (ustar; npm's tarballs). */
function tarEntry(archive, name) {
  let offset = 0;
  let longName;
  while (offset + 512 <= archive.length) {
    const header = archive.subarray(offset, offset + 512);
    if (header.every((byte) => byte === 0)) return undefined;
    const field = (start, length) =>
      header
        .subarray(start, start + length)
        .toString('utf8')
        .replace(/\0.*$/s, '');
    const size = parseInt(field(124, 12).trim() || '0', 8);
    const type = field(156, 1) || '0';
    const prefix = field(345, 155);
    const entryName = longName ?? (prefix ? `${prefix}/${field(0, 100)}` : field(0, 100));
    const body = archive.subarray(offset + 512, offset + 512 + size);
    offset += 512 + Math.ceil(size / 512) * 512;
    longName = undefined;
    if (type === 'L') longName = body.toString('utf8').replace(/\0.*$/s, '');
    else if ((type === '0' || type === '7') && entryName === name) return body;
  }
  return undefined;
}
