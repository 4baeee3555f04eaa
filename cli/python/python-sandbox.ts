/**
 * Python for the Node CLI: a ScriptSandbox whose blocks run in a separate process
 * (python-process.ts, started on the first block with code generation from strings disabled and
 * an empty environment) holding a Pyodide interpreter in a stripped thread (python-worker.ts).
 * Pyodide is an optional dependency: `pythonSandboxIfInstalled()` gives undefined without it, and
 * the engine then refuses Python blocks with UNSUPPORTED_LANGUAGE saying how to add it.
 * Budgets per block: time (`timeoutMs`), printed bytes, result bytes, memory (checked after the
 * block). Syntax is checked when a block first runs, not at load (that needs the interpreter).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { AgentError, type ScriptRunOptions, type ScriptSandbox, type ScriptSource } from '../../src/host.js';
import { cancelled, pythonScriptSandbox, settle, type Answer } from '../../adapters/pyodide/python-script-sandbox.js';

export interface PythonSandboxOptions {
  /** The folder of the `pyodide` package (pyodide.mjs, pyodide.asm.wasm, python_stdlib.zip). */
  pyodideDir: string;
  /** Time one block may run (default 10 s); past it the block is interrupted, then its interpreter ended. */
  timeoutMs?: number;
  /** Bytes of `print` output kept per block (default 64 KiB; the rest is dropped with a note). */
  printBytes?: number;
  /** Bytes of a block's JSON result (default 1 MiB). */
  resultBytes?: number;
  /** The built python-process.js (default: beside this module, as in dist/). */
  processScript?: string;
  /**
   * The interpreter's wasm memory cap (default 512 MiB, at least 64 MiB, at most 4 GiB less a page): set in the
   * wasm binary, so the engine refuses to grow past it; the block gets a MemoryError, answered as PYTHON_BUDGET.
   */
  memoryBytes?: number;
  /**
   * The start-up snapshot file (default: python-snapshot-file.ts, `.cache/python/` in the folder above the
   * built process); `false`: no snapshot, every interpreter boots cold.
   */
  snapshotFile?: string | false;
}

const MIN_MEMORY_BYTES = 64 * 1024 * 1024;
const MAX_MEMORY_BYTES = 4 * 1024 * 1024 * 1024 - 65536;

/** Where the `pyodide` package is: TEA_EDGE_PYODIDE_DIR, else resolved from this package; undefined when absent. */
export function findPyodide(): string | undefined {
  const fromEnvironment = process.env['TEA_EDGE_PYODIDE_DIR'];
  if (fromEnvironment !== undefined && fromEnvironment !== '')
    return existsSync(path.join(fromEnvironment, 'pyodide.mjs')) ? fromEnvironment : undefined;
  try {
    return path.dirname(createRequire(import.meta.url).resolve('pyodide/package.json'));
  } catch {
    return undefined;
  }
}

/** The Python sandbox when the `pyodide` package is installed, else undefined. */
export function pythonSandboxIfInstalled(
  options: Omit<PythonSandboxOptions, 'pyodideDir'> = {},
): ScriptSandbox | undefined {
  const pyodideDir = findPyodide();
  return pyodideDir === undefined ? undefined : createPythonSandbox({ ...options, pyodideDir });
}

export function createPythonSandbox(options: PythonSandboxOptions): ScriptSandbox & { close(): void } {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const resultBytes = options.resultBytes ?? 1024 * 1024;
  const memoryBytes = options.memoryBytes ?? 512 * 1024 * 1024;
  if (!Number.isInteger(memoryBytes) || memoryBytes < MIN_MEMORY_BYTES || memoryBytes > MAX_MEMORY_BYTES) {
    throw new AgentError(
      'HOST_CONFIG',
      `the Python memory cap must be a whole number of bytes from ${MIN_MEMORY_BYTES} to ${MAX_MEMORY_BYTES}; got ${memoryBytes}`,
      { field: 'memoryBytes' },
    );
  }
  const processScript = options.processScript ?? fileURLToPath(new URL('./python-process.js', import.meta.url));

  let child: ChildProcess | undefined;
  let nextId = 1;
  const waiting = new Map<number, (answer: Answer) => void>();

  const start = (): ChildProcess => {
    const started = spawn(
      process.execPath,
      ['--disallow-code-generation-from-strings', '--max-old-space-size=256', processScript],
      {
        env: {
          TEA_EDGE_PYODIDE_DIR: options.pyodideDir,
          TEA_EDGE_PYTHON_PRINT_BYTES: String(options.printBytes ?? 65536),
          TEA_EDGE_PYTHON_MEMORY_BYTES: String(memoryBytes),
          ...(options.snapshotFile !== undefined
            ? { TEA_EDGE_PYTHON_SNAPSHOT: options.snapshotFile === false ? 'off' : options.snapshotFile }
            : {}),
        },
        stdio: ['pipe', 'pipe', 'inherit'],
      },
    );
    createInterface({ input: started.stdout! }).on('line', (line) => {
      const answer = JSON.parse(line) as Answer;
      waiting.get(answer.id)?.(answer);
      waiting.delete(answer.id);
      if (waiting.size === 0) hold(started, false);
    });
    started.on('exit', () => {
      if (child === started) child = undefined;
      for (const [id, resolve] of waiting) resolve({ id, fatal: 'the Python process ended' });
      waiting.clear();
    });
    hold(started, false);
    return started;
  };

  const call = (code: string, payload: string, where: ScriptSource, runOptions: ScriptRunOptions): Promise<unknown> => {
    if (runOptions.signal?.aborted) return Promise.reject(cancelled(runOptions.signal, where));
    const host = (child ??= start());
    const id = nextId++;
    const answered = new Promise<Answer>((resolve) => waiting.set(id, resolve));
    hold(host, true);
    host.stdin!.write(JSON.stringify({ id, code, payload, timeout_ms: timeoutMs }) + '\n');
    const settled = answered.then((answer) => settle(answer, where, runOptions, resultBytes, timeoutMs));
    const signal = runOptions.signal;
    if (signal === undefined) return settled;
    // The run cancelled or past its deadline: the block is interrupted (its interpreter then
    // discarded) and the call ends now with the run's reason.
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        host.stdin!.write(JSON.stringify({ cancel: id }) + '\n');
        reject(cancelled(signal, where));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      settled.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  };

  return {
    ...pythonScriptSandbox((code, payload, where, runOptions) => call(code, payload, where, runOptions)),
    close() {
      child?.kill();
      child = undefined;
    },
  };
}

/** An idle interpreter process does not keep the host's process alive; one with a block running does. */
function hold(child: ChildProcess, busy: boolean): void {
  for (const handle of [child, child.stdin, child.stdout] as Array<{ ref?: () => void; unref?: () => void } | null>) {
    if (busy) handle?.ref?.();
    else handle?.unref?.();
  }
}
