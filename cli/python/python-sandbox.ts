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
import { AgentError, type CompiledScript, type ScriptRunOptions, type ScriptSandbox, type ScriptSource } from '../../src/host.js';
import { pythonHostAccess } from './python-host-access.js';

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
  /** Wasm memory an interpreter may hold after a block (default 512 MiB); above it, PYTHON_BUDGET and a new interpreter. */
  memoryBytes?: number;
}

interface Answer {
  id: number;
  answer?: string;
  printed?: string[];
  print_cut?: boolean;
  budget?: 'time' | 'memory';
  fatal?: string;
  elapsed_ms?: number;
  startup_ms?: number;
}

/** Where the `pyodide` package is: TEA_EDGE_PYODIDE_DIR, else resolved from this package; undefined when absent. */
export function findPyodide(): string | undefined {
  const fromEnvironment = process.env['TEA_EDGE_PYODIDE_DIR'];
  if (fromEnvironment !== undefined && fromEnvironment !== '') return existsSync(path.join(fromEnvironment, 'pyodide.mjs')) ? fromEnvironment : undefined;
  try {
    return path.dirname(createRequire(import.meta.url).resolve('pyodide/package.json'));
  } catch {
    return undefined;
  }
}

/** The Python sandbox when the `pyodide` package is installed, else undefined. */
export function pythonSandboxIfInstalled(options: Omit<PythonSandboxOptions, 'pyodideDir'> = {}): ScriptSandbox | undefined {
  const pyodideDir = findPyodide();
  return pyodideDir === undefined ? undefined : createPythonSandbox({ ...options, pyodideDir });
}

export function createPythonSandbox(options: PythonSandboxOptions): ScriptSandbox & { close(): void } {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const resultBytes = options.resultBytes ?? 1024 * 1024;
  let child: ChildProcess | undefined;
  let nextId = 1;
  const waiting = new Map<number, (answer: Answer) => void>();

  const start = (): ChildProcess => {
    const script = options.processScript ?? fileURLToPath(new URL('./python-process.js', import.meta.url));
    const started = spawn(process.execPath, ['--disallow-code-generation-from-strings', '--max-old-space-size=256', script], {
      env: {
        TEA_EDGE_PYODIDE_DIR: options.pyodideDir,
        TEA_EDGE_PYTHON_PRINT_BYTES: String(options.printBytes ?? 65536),
        TEA_EDGE_PYTHON_MEMORY_BYTES: String(options.memoryBytes ?? 512 * 1024 * 1024),
      },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
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
    language: 'python',
    errorCodes: { syntax: 'PYTHON_SYNTAX', runtime: 'PYTHON_ERROR', budget: 'PYTHON_BUDGET' },
    compile(code: string, where: ScriptSource = {}): CompiledScript {
      return {
        language: 'python',
        source: code,
        run(globals, runOptions = {}) {
          const text = typeof globals['code'] === 'string' ? globals['code'] : code;
          // `wrapper: 'reflection'`: TEA's reflection generator/corrector form instead of a node's.
          const payload = { state: globals['state'] ?? {}, variables: globals['variables'] ?? {}, ...(globals['wrapper'] === 'reflection' ? { wrapper: 'reflection' } : {}) };
          return call(text, JSON.stringify(payload), where, runOptions);
        },
      };
    },
    budgetFromSettings() {
      return undefined;
    },
    warningsOf(code) {
      return pythonHostAccess(code).map((what) => `this Python block ${what}`);
    },
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

function place(where: ScriptSource, line?: number | null): Record<string, unknown> {
  return {
    ...(where.node !== undefined ? { node: where.node } : {}),
    field: where.field ?? 'run',
    ...(where.file !== undefined ? { file: where.file } : {}),
    ...(line != null && where.line !== undefined ? { line: where.line + line } : {}),
  };
}

function cancelled(signal: AbortSignal, where: ScriptSource): Error {
  return AgentError.isInstance(signal.reason) ? signal.reason : new AgentError('CANCELLED', 'the run was cancelled', place(where));
}

function settle(answer: Answer, where: ScriptSource, options: ScriptRunOptions, resultBytes: number, timeoutMs: number): unknown {
  for (const line of answer.printed ?? []) options.onPrint?.(line);
  if (answer.print_cut === true) options.onPrint?.('[print output past the limit was dropped]');
  if (answer.budget !== undefined) {
    const message = answer.budget === 'time' ? `the Python block ran past its time limit (${timeoutMs} ms)` : 'the Python block went past its memory limit';
    throw new AgentError('PYTHON_BUDGET', message, { ...place(where), details: { budget: answer.budget, ...(answer.budget === 'time' ? { limit: timeoutMs } : {}) } });
  }
  if (answer.fatal !== undefined || answer.answer === undefined) throw new AgentError('PYTHON_ERROR', answer.fatal ?? 'no answer from the Python interpreter', place(where));
  if (answer.answer.length > resultBytes) {
    throw new AgentError('PYTHON_BUDGET', `the Python block's result is ${answer.answer.length} bytes of JSON, above the limit ${resultBytes}`, { ...place(where), details: { budget: 'result_bytes', limit: resultBytes } });
  }
  const outcome = JSON.parse(answer.answer) as { ok: boolean; result?: unknown; kind?: string; message?: string; line?: number | null };
  if (outcome.ok) return outcome.result;
  if (outcome.kind === 'interrupted') throw new AgentError('PYTHON_BUDGET', `the Python block ran past its time limit (${timeoutMs} ms)`, { ...place(where), details: { budget: 'time', limit: timeoutMs } });
  if (outcome.kind === 'memory') throw new AgentError('PYTHON_BUDGET', 'the Python block ran out of memory', { ...place(where), details: { budget: 'memory' } });
  const code = outcome.kind === 'syntax' ? 'PYTHON_SYNTAX' : 'PYTHON_ERROR';
  throw new AgentError(code, outcome.message ?? 'the Python block failed', { ...place(where, outcome.line), details: { ...(outcome.line != null ? { line: outcome.line } : {}) } });
}
