/**
 * The thread that holds one Pyodide interpreter (started by python-process.ts). Before Pyodide
 * loads, it reads Pyodide's own files into memory and strips the global object: no `process`,
 * `require`, network (`fetch` serves only those files, then nothing), so Pyodide and Emscripten
 * take this thread for a module web worker and build no bridge to Node (no `child_process`, no
 * host file system). The process runs with code generation from strings disabled. Only JSON
 * strings cross: a call `{code, payload}` in, `{ok, result | error, printed}` out. `js`,
 * `pyodide_js` and the finder that imports them are removed once loaded.
 */
import { readFileSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { PYTHON_RUNNER } from './python-runner.js';

interface WorkerInput {
  pyodideDir: string;
  interrupt: SharedArrayBuffer;
  maxPrintBytes: number;
}

interface Pyodide {
  runPython(code: string, options?: { globals?: unknown }): unknown;
  setInterruptBuffer(buffer: Int32Array): void;
  setStdout(options: { batched: (line: string) => void }): void;
  setStderr(options: { batched: (line: string) => void }): void;
  unregisterJsModule(name: string): void;
  globals: { get(name: string): (...args: unknown[]) => unknown };
  _module?: { HEAPU8?: Uint8Array };
}

const input = workerData as WorkerInput;
const port = parentPort!;
const files = new Map<string, Uint8Array>();
for (const name of ['pyodide.asm.wasm', 'python_stdlib.zip', 'pyodide-lock.json']) files.set(name, readFileSync(`${input.pyodideDir}/${name}`));
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
const python = await loadPyodide({ indexURL: `file://${input.pyodideDir}/`, stdout: print, stderr: print });
files.clear();
serveFiles = false;
for (const name of ['js', 'pyodide_js']) python.unregisterJsModule(name);
python.runPython(PYTHON_RUNNER);
const run = python.globals.get('__tea_run');
python.setInterruptBuffer(new Int32Array(input.interrupt));
port.postMessage({ ready: true, startup_ms: Date.now() - started });

port.on('message', (call: { code: string; payload: string }) => {
  printed = [];
  printedBytes = 0;
  printCut = false;
  const answer = String(run(call.code, call.payload));
  port.postMessage({ answer, printed, print_cut: printCut, memory_bytes: python._module?.HEAPU8?.length ?? 0 });
});
