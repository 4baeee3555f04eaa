/** Runs a module given as source text (read from stdin, paths relative to the repository) in the `deno` binary of .cache/deno/. */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { DENO_BINARY } from './deno-binary.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** The module's stdout; rejects with its stderr when it exits non-zero. `flags` go before `-` (e.g. an import map). */
export function runModuleInDeno(source: string, flags: readonly string[] = []): Promise<string> {
  const child = spawn(DENO_BINARY, ['run', '--quiet', ...flags, '-'], {
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
    child.on('close', (code) =>
      code === 0 ? resolve(output) : reject(new Error(`deno exited ${code}: ${errors.slice(0, 2000)}`)),
    );
  });
}
