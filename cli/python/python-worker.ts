/**
 * The thread that holds one Pyodide interpreter (started by python-process.ts). Before Pyodide
 * loads, it reads Pyodide's own files (and the start-up snapshot, when there is one) into memory
 * and strips the global object: no `process`, `require`, network (`fetch` serves only those files,
 * then nothing), so Pyodide and Emscripten take this thread for a module web worker and build no
 * bridge to Node (no `child_process`, no host file system). The process runs with code generation
 * from strings disabled. Only JSON strings cross: a call `{code, payload}` in,
 * `{answer, printed, print_cut, memory_error}` out. `js`, `pyodide_js` and the finder that imports
 * them are removed once loaded.
 *
 * Memory: the wasm binary's memory maximum is rewritten to the cap before it is compiled
 * (wasm-memory-cap.ts), so the engine refuses to grow past it and Python sees a MemoryError.
 *
 * Start-up: with a snapshot (the memory of an interpreter this same stripped thread made, common
 * modules imported) the interpreter is restored from it instead of booting
 * Python; without one, it boots cold, then makes the snapshot and hands it to the process, which
 * keeps it for the next start (`{ready, snapshot}`).
 */
import { existsSync, readFileSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { PYTHON_RUNNER, PYTHON_WARM_IMPORTS } from './python-runner.js';
import { capWasmMemory } from './wasm-memory-cap.js';

interface WorkerInput {
  pyodideDir: string;
  interrupt: SharedArrayBuffer;
  maxPrintBytes: number;
  maxMemoryBytes: number;
  /** The snapshot file to start from when it exists; undefined: no snapshot, made or used. */
  snapshotFile?: string;
}

interface Pyodide {
  runPython(code: string, options?: { globals?: unknown }): unknown;
  setInterruptBuffer(buffer: Int32Array): void;
  unregisterJsModule(name: string): void;
  makeMemorySnapshot(): Uint8Array;
  globals: { get(name: string): (...args: unknown[]) => unknown };
}

const input = workerData as WorkerInput;
const port = parentPort!;
const snapshot = input.snapshotFile !== undefined && existsSync(input.snapshotFile) ? readFileSync(input.snapshotFile) : undefined;
const files = new Map<string, Uint8Array>();
for (const name of ['pyodide.asm.wasm', 'python_stdlib.zip', 'pyodide-lock.json']) files.set(name, readFileSync(`${input.pyodideDir}/${name}`));
files.set('pyodide.asm.wasm', capWasmMemory(files.get('pyodide.asm.wasm')!, input.maxMemoryBytes));
const NativeResponse = Response;

// Everything that reaches the host, gone before Pyodide looks at the environment.
for (const name of ['process', 'require', 'fetch', 'WebSocket', 'EventSource', 'global', 'navigator', 'module', 'setImmediate', 'BroadcastChannel', 'MessageChannel']) {
  Reflect.deleteProperty(globalThis, name);
}
class WorkerGlobalScope {}
Object.setPrototypeOf(globalThis, Object.create(WorkerGlobalScope.prototype, Object.getOwnPropertyDescriptors(Object.getPrototypeOf(globalThis))));
Object.assign(globalThis, { WorkerGlobalScope, self: globalThis, location: new URL(`file://${input.pyodideDir}/`) });
let serveFiles = true;
(globalThis as { fetch?: unknown }).fetch = async (url: string) => {
  const name = String(url).split('/').pop() ?? '';
  const bytes = files.get(name);
  if (!serveFiles || bytes === undefined) throw new TypeError('no network in the Python sandbox');
  return new NativeResponse(bytes as Uint8Array<ArrayBuffer>, { headers: { 'content-type': name.endsWith('.wasm') ? 'application/wasm' : 'application/octet-stream' } });
};

let printed: string[] = [];
let printedBytes = 0;
let printCut = false;
const print = (line: string) => {
  printedBytes += line.length + 1;
  if (printedBytes > input.maxPrintBytes) printCut = true;
  else printed.push(line);
};

const { loadPyodide } = (await import(`file://${input.pyodideDir}/pyodide.mjs`)) as { loadPyodide(options: object): Promise<Pyodide> };
const started = Date.now();
const boot = snapshot !== undefined ? { _loadSnapshot: snapshot } : { _makeSnapshot: input.snapshotFile !== undefined };
let python: Pyodide;
try {
  // `jsglobals`, what `import js` would reach: an empty object, not this thread's global (and the module is unregistered below).
  python = await loadPyodide({ indexURL: `file://${input.pyodideDir}/`, stdout: print, stderr: print, jsglobals: {}, ...boot });
} catch (error) {
  // A snapshot this Pyodide cannot use (another build, a cut file): the process drops it and starts cold.
  if (snapshot !== undefined) port.postMessage({ snapshot_unusable: (error as Error).message });
  throw error;
}
files.clear();
serveFiles = false;
let made: Uint8Array | undefined;
if (snapshot === undefined && input.snapshotFile !== undefined) {
  // Made before the JavaScript modules are unregistered: Pyodide's snapshot expects them in their slots.
  // `js` is the empty object above; both are unregistered below, after a restore as after a cold boot.
  python.runPython(PYTHON_WARM_IMPORTS);
  made = python.makeMemorySnapshot();
}
for (const name of ['js', 'pyodide_js']) python.unregisterJsModule(name);
python.runPython(PYTHON_RUNNER);
const run = python.globals.get('__tea_run');
python.setInterruptBuffer(new Int32Array(input.interrupt));
port.postMessage({ ready: true, startup_ms: Date.now() - started, from_snapshot: snapshot !== undefined, ...(made !== undefined ? { snapshot: made } : {}) }, made !== undefined ? [made.buffer as ArrayBuffer] : []);

port.on('message', (call: { code: string; payload: string }) => {
  printed = [];
  printedBytes = 0;
  printCut = false;
  const answer = String(run(call.code, call.payload));
  // A failure is short JSON (its message is cut at 4,000 characters); only failures are read here.
  const memoryError = answer.startsWith('{"ok": false') && (JSON.parse(answer) as { kind?: string }).kind === 'memory';
  port.postMessage({ answer, printed, print_cut: printCut, memory_error: memoryError });
});
