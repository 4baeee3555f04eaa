/**
 * The Deno entry (worker/deno/deno.ts) for real: bundled with test agents and served by the `deno`
 * binary of .cache/deno/ on 127.0.0.1 at a random port, over a Deno KV file. Several servers
 * given the same KV file share runs, like several Deno processes (or one restarted) in production.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { bundleTestWorker } from '../worker/miniflare-harness.js';
import { DENO_BINARY } from './deno-binary.js';

/** Bundles worker/deno/deno.ts with the agents of tests/worker/agents into `directory`; returns its path. */
export async function bundleDenoServer(directory: string): Promise<string> {
  const bundle = path.join(directory, 'deno-worker.js');
  await writeFile(bundle, await bundleTestWorker('worker/deno/deno.ts'));
  return bundle;
}

export interface DenoServer {
  url: string;
  child: ChildProcess;
  /** Everything the process wrote so far. */
  output(): string;
}

/** Starts a Deno server; resolves with its base URL once it prints its listening line. */
/** `write`: Deno's write permission flag (`--allow-write=DIR` to confine writes to one folder). */
export function startDenoServer(
  bundle: string,
  environment: Record<string, string>,
  write = '--allow-write',
): Promise<DenoServer> {
  const binary = DENO_BINARY;
  if (!existsSync(binary))
    return Promise.reject(new Error(`no deno binary at ${binary}: run node build/ensure-deno.mjs`));
  const child = spawn(
    binary,
    ['run', '--quiet', '--allow-net', '--allow-env', '--allow-read', write, '--unstable-kv', bundle],
    {
      cwd: path.dirname(bundle),
      env: {
        ...process.env,
        DENO_NO_UPDATE_CHECK: '1',
        NO_COLOR: '1',
        PORT: '0',
        HOSTNAME: '127.0.0.1',
        ...environment,
      },
    },
  );
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`deno did not start: ${output}`)), 60_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/[^\s]+)/.exec(output);
      if (match !== null) {
        clearTimeout(timer);
        resolve({ url: match[1]!.replace(/\/$/, ''), child, output: () => output });
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', (code) => reject(new Error(`deno exited with ${code}: ${output}`)));
  });
}

/** Stops a Deno server (SIGTERM: Deno exits at once; SIGKILL: a crash) and waits for the exit. */
export async function stopDenoServer(server: DenoServer, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return;
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.kill(signal);
  await exited;
}
