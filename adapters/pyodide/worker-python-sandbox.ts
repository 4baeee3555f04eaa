/**
 * A Python sandbox over a web-style Worker holding one interpreter (issue 26): Deno's Worker with
 * no permissions but reading Pyodide's files (deno-python.ts), and the browser's module worker.
 * No host API here but the Worker the host makes. The worker speaks deno-python-worker.ts's
 * messages: `{start}` in, `{ready}` or `{failed}` out, then `{code, payload}` in, a BlockAnswer out.
 *
 * Blocks run one at a time, in order. A block past its time is interrupted (KeyboardInterrupt
 * through a SharedArrayBuffer); one that swallows the interrupt is ended with its worker after a
 * grace period. A worker that hit a budget, ran out of memory or failed is terminated and the next
 * block gets a new one. The run's signal interrupts the block the same way.
 */
import type { ScriptRunOptions, ScriptSandbox, ScriptSource } from '../../src/host.js';
import type { BlockAnswer } from './interpreter.js';
import { cancelled, pythonScriptSandbox, settle, type Answer } from './python-script-sandbox.js';

/** The slice of a web Worker the sandbox uses. */
export interface WorkerLike {
  postMessage(message: unknown): void;
  addEventListener(
    type: 'message' | 'error',
    listener: (event: { data?: unknown; message?: string; preventDefault?(): void }) => void,
  ): void;
  removeEventListener(
    type: 'message' | 'error',
    listener: (event: { data?: unknown; message?: string; preventDefault?(): void }) => void,
  ): void;
  terminate(): void;
}

export interface WorkerPythonSandboxOptions {
  /** Makes a new worker running deno-python-worker.ts (or the browser's equivalent). */
  startWorker(): WorkerLike;
  /** Sent with `{start}`: where the worker finds Pyodide (a folder URL ending with `/`). */
  indexURL: string;
  timeoutMs?: number;
  printBytes?: number;
  resultBytes?: number;
  memoryBytes?: number;
  /** How long a block that swallows the interrupt keeps its worker (default 1 s). */
  graceMs?: number;
  /** Told what each new worker reported when ready (its start-up time, the permissions it holds). */
  onReady?(report: Record<string, unknown>): void;
}

interface Held {
  worker: WorkerLike;
  interrupt: Int32Array;
  ready: Promise<void>;
}

export function createWorkerPythonSandbox(options: WorkerPythonSandboxOptions): ScriptSandbox & { close(): void } {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const resultBytes = options.resultBytes ?? 1024 * 1024;
  const graceMs = options.graceMs ?? 1000;
  let held: Held | undefined;
  let queue: Promise<unknown> = Promise.resolve();

  const start = (): Held => {
    const worker = options.startWorker();
    const buffer = new SharedArrayBuffer(4);
    const ready = new Promise<void>((resolve, reject) => {
      const onMessage = (event: { data?: unknown }) => {
        const data = event.data as { ready?: boolean; failed?: string };
        worker.removeEventListener('message', onMessage);
        worker.removeEventListener('error', onError);
        if (data.ready === true) {
          options.onReady?.(data as Record<string, unknown>);
          resolve();
        } else reject(new Error(data.failed ?? 'the Python worker did not start'));
      };
      const onError = (event: { message?: string; preventDefault?(): void }) => {
        event.preventDefault?.();
        worker.removeEventListener('message', onMessage);
        worker.removeEventListener('error', onError);
        reject(new Error(event.message ?? 'the Python worker failed'));
      };
      worker.addEventListener('message', onMessage);
      worker.addEventListener('error', onError);
    });
    worker.postMessage({
      start: {
        indexURL: options.indexURL,
        interrupt: buffer,
        maxPrintBytes: options.printBytes ?? 65536,
        maxMemoryBytes: options.memoryBytes ?? 512 * 1024 * 1024,
      },
    });
    return { worker, interrupt: new Int32Array(buffer), ready };
  };

  const discard = (interpreter: Held) => {
    if (held === interpreter) held = undefined;
    interpreter.worker.terminate();
  };

  const runOne = async (code: string, payload: string, signal: AbortSignal | undefined): Promise<Answer> => {
    if (signal?.aborted) return { id: 0, fatal: 'cancelled' };
    const interpreter = (held ??= start());
    try {
      await interpreter.ready;
    } catch (error) {
      discard(interpreter);
      return { id: 0, fatal: `the Python interpreter did not start: ${(error as Error).message}` };
    }
    Atomics.store(interpreter.interrupt, 0, 0);
    const outcome = await new Promise<Answer>((resolve) => {
      let interrupted = false;
      let killer: ReturnType<typeof setTimeout> | undefined;
      const finish = (answer: Answer) => {
        clearTimeout(timer);
        if (killer !== undefined) clearTimeout(killer);
        signal?.removeEventListener('abort', interrupt);
        interpreter.worker.removeEventListener('message', onMessage);
        interpreter.worker.removeEventListener('error', onError);
        resolve(interrupted && answer.answer !== undefined ? { id: 0, budget: 'time' } : answer);
      };
      const onMessage = (event: { data?: unknown }) => {
        const data = event.data as BlockAnswer;
        if (data.memory_error) discard(interpreter);
        finish({ id: 0, answer: data.answer, printed: data.printed, print_cut: data.print_cut });
      };
      const onError = (event: { message?: string; preventDefault?(): void }) => {
        event.preventDefault?.();
        discard(interpreter);
        finish(
          /memory/i.test(event.message ?? '')
            ? { id: 0, budget: 'memory' }
            : { id: 0, fatal: event.message ?? 'the Python worker failed' },
        );
      };
      const interrupt = () => {
        if (interrupted) return;
        interrupted = true;
        Atomics.store(interpreter.interrupt, 0, 2); // SIGINT: Python raises KeyboardInterrupt
        killer = setTimeout(() => {
          discard(interpreter);
          finish({ id: 0, budget: 'time' });
        }, graceMs);
      };
      const timer = setTimeout(interrupt, timeoutMs);
      signal?.addEventListener('abort', interrupt, { once: true });
      interpreter.worker.addEventListener('message', onMessage);
      interpreter.worker.addEventListener('error', onError);
      interpreter.worker.postMessage({ code, payload });
    });
    if (outcome.budget !== undefined) discard(interpreter);
    return outcome;
  };

  const runBlock = (
    code: string,
    payload: string,
    where: ScriptSource,
    runOptions: ScriptRunOptions,
  ): Promise<unknown> => {
    const signal = runOptions.signal;
    const answered = queue.then(() => runOne(code, payload, signal));
    queue = answered.catch(() => undefined);
    return answered.then((answer) => {
      // The run cancelled or past its deadline: its own reason, not the interrupted block's.
      if (signal?.aborted) throw cancelled(signal, where);
      return settle(answer, where, runOptions, resultBytes, timeoutMs);
    });
  };

  return {
    ...pythonScriptSandbox(runBlock),
    close() {
      if (held !== undefined) discard(held);
    },
  };
}
