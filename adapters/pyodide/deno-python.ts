/**
 * Python blocks on Deno (issue 26): each interpreter in a Deno Worker whose only permission is
 * reading Pyodide's own folder (no net, run, env, write, ffi, sys), holding nothing else
 * (deno-python-worker.ts), driven by worker-python-sandbox.ts. The Deno process must itself hold
 * read permission for that folder and the worker's script (a worker's permissions are a subset of
 * its parent's), and run with `--unstable-worker-options` (Deno's flag for per-worker permissions).
 */
import type { ScriptSandbox } from '../../src/host.js';
import {
  createWorkerPythonSandbox,
  type WorkerLike,
  type WorkerPythonSandboxOptions,
} from './worker-python-sandbox.js';

export interface DenoPythonSandboxOptions extends Omit<WorkerPythonSandboxOptions, 'startWorker' | 'indexURL'> {
  /** Pyodide's folder (pyodide.mjs, pyodide.asm.mjs, pyodide.asm.wasm, python_stdlib.zip, pyodide-lock.json), as a path. */
  pyodideDir: string;
  /** The built deno-python-worker.js (bundled: it imports the interpreter and runner). */
  workerUrl: URL;
}

type DenoWorkerConstructor = new (
  url: URL,
  options: { type: 'module'; deno: { permissions: Record<string, unknown> } },
) => WorkerLike;

export function createDenoPythonSandbox(options: DenoPythonSandboxOptions): ScriptSandbox & { close(): void } {
  const folder = options.pyodideDir.endsWith('/') ? options.pyodideDir : `${options.pyodideDir}/`;
  const indexURL = new URL(`file://${folder}`).href;
  const DenoWorker = (globalThis as unknown as { Worker: DenoWorkerConstructor }).Worker;
  return createWorkerPythonSandbox({
    ...options,
    indexURL,
    startWorker: () =>
      new DenoWorker(options.workerUrl, {
        type: 'module',
        deno: {
          permissions: {
            read: [folder],
            net: false,
            run: false,
            env: false,
            write: false,
            ffi: false,
            sys: false,
            import: false,
          },
        },
      }),
  });
}
