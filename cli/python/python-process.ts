/**
 * The process that runs Python blocks for a Node host (started by python-sandbox.ts with
 * `--disallow-code-generation-from-strings`). It holds one interpreter thread (python-worker.ts)
 * and reads calls as JSON lines on stdin: `{id, code, payload, timeout_ms}`; it answers JSON
 * lines on stdout: `{id, answer, printed, print_cut, memory_bytes}` or `{id, budget, message}`.
 * A block past its time is interrupted (KeyboardInterrupt through a SharedArrayBuffer); one that
 * swallows the interrupt is ended with its thread after a grace period. A thread that hit a
 * budget or grew past the memory cap is discarded and the next call gets a new one.
 */
import { createInterface } from 'node:readline';
import { Worker } from 'node:worker_threads';

interface Call {
  id: number;
  code: string;
  payload: string;
  timeout_ms: number;
}

const pyodideDir = process.env['TEA_EDGE_PYODIDE_DIR']!;
const maxPrintBytes = Number(process.env['TEA_EDGE_PYTHON_PRINT_BYTES'] ?? 65536);
const maxMemoryBytes = Number(process.env['TEA_EDGE_PYTHON_MEMORY_BYTES'] ?? 512 * 1024 * 1024);
const GRACE_MS = 1000;

interface Interpreter {
  worker: Worker;
  interrupt: Int32Array;
  ready: Promise<number>;
}

let current: Interpreter | undefined;

function startInterpreter(): Interpreter {
  const buffer = new SharedArrayBuffer(4);
  const worker = new Worker(new URL('./python-worker.js', import.meta.url), {
    workerData: { pyodideDir, interrupt: buffer, maxPrintBytes },
    resourceLimits: { maxOldGenerationSizeMb: 256 },
    env: {},
    stdout: true,
    stderr: true,
  });
  const ready = new Promise<number>((resolve, reject) => {
    worker.once('message', (message: { startup_ms: number }) => resolve(message.startup_ms));
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the Python thread ended (${code}) while starting`)));
  });
  return { worker, interrupt: new Int32Array(buffer), ready };
}

function discard(interpreter: Interpreter): void {
  if (current === interpreter) current = undefined;
  void interpreter.worker.terminate();
}

function write(message: object): void {
  process.stdout.write(JSON.stringify(message) + '\n');
}

async function handle(call: Call): Promise<void> {
  const interpreter = (current ??= startInterpreter());
  let startupMs: number;
  try {
    startupMs = await interpreter.ready;
  } catch (error) {
    discard(interpreter);
    write({ id: call.id, fatal: `the Python interpreter did not start: ${(error as Error).message}` });
    return;
  }
  Atomics.store(interpreter.interrupt, 0, 0);
  const started = Date.now();
  const outcome = await new Promise<{ answer?: object; budget?: string; fatal?: string }>((resolve) => {
    let interrupted = false;
    const onMessage = (message: object) => finish({ answer: message });
    const onError = (error: Error) => finish(/memory/i.test(error.message) ? { budget: 'memory' } : { fatal: error.message });
    const onExit = () => finish({ fatal: 'the Python thread ended' });
    const timer = setTimeout(() => {
      interrupted = true;
      Atomics.store(interpreter.interrupt, 0, 2); // SIGINT: Python raises KeyboardInterrupt
      killer = setTimeout(() => finish({ budget: 'time' }), GRACE_MS);
    }, call.timeout_ms);
    let killer: ReturnType<typeof setTimeout> | undefined;
    function finish(result: { answer?: object; budget?: string; fatal?: string }) {
      clearTimeout(timer);
      if (killer !== undefined) clearTimeout(killer);
      interpreter.worker.off('message', onMessage).off('error', onError).off('exit', onExit);
      resolve(interrupted && result.answer !== undefined ? { budget: 'time' } : result);
    }
    interpreter.worker.on('message', onMessage).on('error', onError).on('exit', onExit);
    interpreter.worker.postMessage({ code: call.code, payload: call.payload });
  });
  const elapsedMs = Date.now() - started;
  if (outcome.answer !== undefined) {
    const memory = (outcome.answer as { memory_bytes?: number }).memory_bytes ?? 0;
    if (memory > maxMemoryBytes) {
      // Found after the block (the wasm memory is not capped while it runs): its result is dropped.
      discard(interpreter);
      write({ id: call.id, budget: 'memory', elapsed_ms: elapsedMs });
      return;
    }
    write({ id: call.id, ...outcome.answer, startup_ms: startupMs, elapsed_ms: elapsedMs });
    return;
  }
  discard(interpreter);
  write({ id: call.id, ...outcome, elapsed_ms: elapsedMs });
}

// Calls run one at a time, in order: one interpreter, one block.
let queue = Promise.resolve();
createInterface({ input: process.stdin }).on('line', (line) => {
  const call = JSON.parse(line) as Call;
  queue = queue.then(() => handle(call));
});
process.stdin.on('end', () => {
  void queue.then(() => process.exit(0));
});
