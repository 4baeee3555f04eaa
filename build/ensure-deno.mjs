// The Deno tests run the real `deno` binary from the npm registry. Its package lists optional
// per-platform binaries that this registry mirror does not all carry, so a lock file cannot hold
// it and `npm ci` would refuse; it is installed here, outside the lock, when missing.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const DENO_VERSION = '2.9.6';
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const binary = path.join(root, 'node_modules', '.bin', process.platform === 'win32' ? 'deno.cmd' : 'deno');

if (!existsSync(binary)) {
  console.error(`installing deno@${DENO_VERSION} for the Deno tests (not in the lock file; see build/ensure-deno.mjs)`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  execFileSync(npm, ['install', '--no-save', '--no-package-lock', '--no-audit', '--no-fund', `deno@${DENO_VERSION}`], { cwd: root, stdio: 'inherit' });
}
