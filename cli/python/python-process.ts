/**
 * The process that runs Python blocks for a Node host (started by python-sandbox.ts with
 * `--disallow-code-generation-from-strings`). It holds one interpreter thread (python-worker.ts)
 * and reads calls as JSON lines on stdin: `{id, code, payload, timeout_ms}`; it answers JSON
 * lines on stdout: `{id, answer, printed, print_cut, startup_ms, from_snapshot}` or `{id, budget}` / `{id, fatal}`.
 * `{cancel: id}` (the run was cancelled or hit its deadline) interrupts that call like a timeout,
 * or drops it when it has not started.
 * A block past its time is interrupted (KeyboardInterrupt through a SharedArrayBuffer); one that
 * swallows the interrupt is ended with its thread after a grace period. A thread that hit a
 * budget or ran out of memory (the wasm memory is capped in the binary: python-worker.ts) is
 * discarded and the next call gets a new one.
 *
 * Start-up snapshot: TEA_EDGE_PYTHON_SNAPSHOT names a file (unset: python-snapshot-file.ts's
 * default; `off`: none). When it exists the thread restores
 * the interpreter from it; when not, the thread boots cold and hands back a snapshot, written here
 * (a temporary file renamed into place, so a reader never sees half of one). A snapshot Pyodide
 * refuses (another build, a cut file) is deleted and the thread started again cold.
 */
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { defaultSnapshotFile } from './python-snapshot-file.js';

interface Call {
  id: number;
  code: string;
  payload: string;
  timeout_ms: number;
}

const pyodideDir = process.env['TEA_EDGE_PYODIDE_DIR']!;
const maxPrintBytes = Number(process.env['TEA_EDGE_PYTHON_PRINT_BYTES'] ?? 65536);
const maxMemoryBytes = Number(process.env['TEA_EDGE_PYTHON_MEMORY_BYTES'] ?? 512 * 1024 * 1024);
const WORKER_SCRIPT = new URL('./python-worker.js', import.meta.url);
// Unset: the default file; 'off': no snapshot.
const snapshotSetting = process.env['TEA_EDGE_PYTHON_SNAPSHOT'];
const snapshotFile =
  snapshotSetting === 'off'
    ? undefined
    : snapshotSetting || defaultSnapshotFile(pyodideDir, fileURLToPath(WORKER_SCRIPT));
const GRACE_MS = 1000;

interface Interpreter {
  worker: Worker;
  interrupt: Int32Array;
  ready: Promise<Started>;
}

interface Started {
  startup_ms: number;
  from_snapshot: boolean;
  /** Set when the snapshot could not be kept (the cache folder is not writable, …). */
  snapshot_note?: string;
}

interface ReadyMessage {
  ready?: true;
  startup_ms: number;
  from_snapshot: boolean;
  snapshot?: Uint8Array;
  snapshot_unusable?: string;
}

let current: Interpreter | undefined;
/** Calls cancelled before they started, and the way to interrupt the one running. */
const cancelled = new Set<number>();
let interruptRunning: { id: number; interrupt: () => void } | undefined;

function startInterpreter(): Interpreter {
  const buffer = new SharedArrayBuffer(4);
  const worker = new Worker(WORKER_SCRIPT, {
    workerData: { pyodideDir, interrupt: buffer, maxPrintBytes, maxMemoryBytes, snapshotFile },
    resourceLimits: { maxOldGenerationSizeMb: 256 },
    env: {},
    stdout: true,
    stderr: true,
  });
  // Errors are answered by the listeners of the start and of each call; one between them (a thread ended) must not end this process.
  worker.on('error', () => undefined);
  const ready = new Promise<Started>((resolve, reject) => {
    const onMessage = (message: ReadyMessage) => {
      worker.off('message', onMessage).off('error', reject).off('exit', onExit);
      if (message.snapshot_unusable !== undefined) return reject(new SnapshotUnusable(message.snapshot_unusable));
      const started: Started = { startup_ms: message.startup_ms, from_snapshot: message.from_snapshot };
      if (message.snapshot !== undefined) {
        const note = keepSnapshot(message.snapshot);
        if (note !== undefined) started.snapshot_note = note;
      }
      resolve(started);
    };
    const onExit = (code: number) => reject(new Error(`the Python thread ended (${code}) while starting`));
    worker.on('message', onMessage).once('error', reject).once('exit', onExit);
  });
  return { worker, interrupt: new Int32Array(buffer), ready };
}

class SnapshotUnusable extends Error {}

/** Writes the snapshot a cold thread made; answers why not when it could not. */
function keepSnapshot(bytes: Uint8Array): string | undefined {
  const temporary = `${snapshotFile!}.${process.pid}.tmp`;
  try {
    mkdirSync(path.dirname(snapshotFile!), { recursive: true });
    writeFileSync(temporary, bytes);
    renameSync(temporary, snapshotFile!);
    return undefined;
  } catch (error) {
    rmSync(temporary, { force: true });
    return `the start-up snapshot was not kept: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`;
  }
}

/** The interpreter of this process, started when there is none; a snapshot it cannot use is deleted and it starts cold. */
async function readyInterpreter(): Promise<{ interpreter: Interpreter; started: Started } | { fatal: string }> {
  let interpreter = (current ??= startInterpreter());
  try {
    return { interpreter, started: await interpreter.ready };
  } catch (error) {
    discard(interpreter);
    if (!(error instanceof SnapshotUnusable))
      return { fatal: `the Python interpreter did not start: ${(error as Error).message}` };
    rmSync(snapshotFile!, { force: true });
    interpreter = current = startInterpreter();
    try {
      return {
        interpreter,
        started: {
          ...(await interpreter.ready),
          snapshot_note: `the start-up snapshot was not usable (${error.message}); started cold and made a new one`,
        },
      };
    } catch (coldError) {
      discard(interpreter);
      return { fatal: `the Python interpreter did not start: ${(coldError as Error).message}` };
    }
  }
}

function discard(interpreter: Interpreter): void {
  if (current === interpreter) current = undefined;
  void interpreter.worker.terminate();
}

/** CPU time this process (its threads included) has used since it started, for the start-up bench. */
function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return Math.round((user + system) / 1000);
}

function write(message: object): void {
  process.stdout.write(JSON.stringify(message) + '\n');
}

async function handle(call: Call): Promise<void> {
  if (cancelled.delete(call.id)) return write({ id: call.id, fatal: 'cancelled' });
  const ready = await readyInterpreter();
  if ('fatal' in ready) return write({ id: call.id, fatal: ready.fatal });
  const { interpreter, started: startup } = ready;
  Atomics.store(interpreter.interrupt, 0, 0);
  const started = Date.now();
  const outcome = await new Promise<{ answer?: object; budget?: string; fatal?: string }>((resolve) => {
    let interrupted = false;
    const onMessage = (message: object) => finish({ answer: message });
    const onError = (error: Error) =>
      finish(/memory/i.test(error.message) ? { budget: 'memory' } : { fatal: error.message });
    const onExit = () => finish({ fatal: 'the Python thread ended' });
    const interrupt = () => {
      if (interrupted) return;
      interrupted = true;
      Atomics.store(interpreter.interrupt, 0, 2); // SIGINT: Python raises KeyboardInterrupt
      killer = setTimeout(() => finish({ budget: 'time' }), GRACE_MS);
    };
    const timer = setTimeout(interrupt, call.timeout_ms);
    interruptRunning = { id: call.id, interrupt };
    let killer: ReturnType<typeof setTimeout> | undefined;
    function finish(result: { answer?: object; budget?: string; fatal?: string }) {
      interruptRunning = undefined;
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
    // A MemoryError leaves the interpreter's memory grown to the cap (wasm memory never shrinks): the next block gets a new one.
    if ((outcome.answer as { memory_error?: boolean }).memory_error === true) discard(interpreter);
    write({ id: call.id, ...outcome.answer, ...startup, elapsed_ms: elapsedMs, cpu_ms: cpuMs() });
    return;
  }
  discard(interpreter);
  write({ id: call.id, ...outcome, elapsed_ms: elapsedMs });
}

// Calls run one at a time, in order: one interpreter, one block.
let queue = Promise.resolve();
createInterface({ input: process.stdin }).on('line', (line) => {
  const message = JSON.parse(line) as Call | { cancel: number };
  if ('cancel' in message) {
    if (interruptRunning?.id === message.cancel) interruptRunning.interrupt();
    else cancelled.add(message.cancel);
    return;
  }
  queue = queue.then(() => handle(message));
});
process.stdin.on('end', () => {
  void queue.then(() => process.exit(0));
});
