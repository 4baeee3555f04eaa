/** Starts a bundled Deno server entry under the `deno` binary of node_modules, for host tests. */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');

/**
 * Runs `bundle` with `deno run` in `directory` on a random loopback port; resolves with its base
 * URL once it prints its listening line (rejects after 60 s or when it exits first).
 */
export function startDenoBundle(bundle: string, directory: string, environment: Record<string, string>): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(path.join(root, 'node_modules/.bin/deno'), ['run', '--quiet', '--allow-net', '--allow-env', '--allow-read', '--allow-write', '--unstable-kv', bundle], {
    cwd: directory,
    env: { ...process.env, DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1', PORT: '0', HOSTNAME: '127.0.0.1', ...environment },
  });
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`deno did not start: ${output}`)), 60_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/[^\s]+)/.exec(output);
      if (match !== null) {
        clearTimeout(timer);
        resolve({ url: match[1]!.replace(/\/$/, ''), child });
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', (code) => reject(new Error(`deno exited with ${code}: ${output}`)));
  });
}
