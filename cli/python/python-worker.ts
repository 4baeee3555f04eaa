/**
 * The Node thread that holds one Pyodide interpreter (started by python-process.ts; the
 * interpreter itself: adapters/pyodide/interpreter.ts). Before Pyodide loads, it reads Pyodide's
 * own files (and the start-up snapshot, when there is one) into memory, deletes `process`,
 * `require` and Node's other host objects from its global object and makes it look like a web
 * worker's, so Pyodide and Emscripten build no bridge to Node (no `child_process`, no host file
 * system). The process runs with code generation from strings disabled. Messages: `{ready,
 * startup_ms, from_snapshot, snapshot?}` or `{snapshot_unusable}` once, then a call `{code,
 * payload}` in and a `BlockAnswer` out.
 */
import { existsSync, readFileSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import {
  PYODIDE_FILES,
  SnapshotUnusable,
  startInterpreter,
  type PyodideFiles,
} from '../../adapters/pyodide/interpreter.js';

interface WorkerInput {
  pyodideDir: string;
  interrupt: SharedArrayBuffer;
  maxPrintBytes: number;
  maxMemoryBytes: number;
  /** The snapshot file to start from when it exists, else to make; undefined: none. */
  snapshotFile?: string;
}

const input = workerData as WorkerInput;
const port = parentPort!;
const snapshot =
  input.snapshotFile !== undefined && existsSync(input.snapshotFile) ? readFileSync(input.snapshotFile) : undefined;
const files = Object.fromEntries(
  PYODIDE_FILES.map((name) => [name, readFileSync(`${input.pyodideDir}/${name}`)]),
) as unknown as PyodideFiles;

class WorkerGlobalScope {}
// Deleted by startInterpreter before Pyodide looks at the environment.
const hostGlobals = [
  'process',
  'require',
  'fetch',
  'WebSocket',
  'EventSource',
  'global',
  'navigator',
  'module',
  'setImmediate',
  'BroadcastChannel',
  'MessageChannel',
];
Object.setPrototypeOf(
  globalThis,
  Object.create(WorkerGlobalScope.prototype, Object.getOwnPropertyDescriptors(Object.getPrototypeOf(globalThis))),
);
Object.assign(globalThis, { WorkerGlobalScope, self: globalThis, location: new URL(`file://${input.pyodideDir}/`) });

let interpreter;
try {
  interpreter = await startInterpreter({
    indexURL: `file://${input.pyodideDir}/`,
    files,
    hostGlobals,
    interrupt: input.interrupt,
    maxPrintBytes: input.maxPrintBytes,
    maxMemoryBytes: input.maxMemoryBytes,
    ...(snapshot !== undefined ? { snapshot } : {}),
    makeSnapshot: input.snapshotFile !== undefined,
  });
} catch (error) {
  if (error instanceof SnapshotUnusable) port.postMessage({ snapshot_unusable: error.message });
  throw error;
}
const made = interpreter.snapshot;
port.postMessage(
  {
    ready: true,
    startup_ms: interpreter.startup_ms,
    from_snapshot: interpreter.from_snapshot,
    ...(made !== undefined ? { snapshot: made } : {}),
  },
  made !== undefined ? [made.buffer as ArrayBuffer] : [],
);
port.on('message', (call: { code: string; payload: string }) =>
  port.postMessage(interpreter.run(call.code, call.payload)),
);
