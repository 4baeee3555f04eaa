/**
 * The Deno Worker that holds one Pyodide interpreter (started by deno-python.ts with no
 * permissions but reading Pyodide's own folder). On `{start}` it reads Pyodide's files, reports
 * the permissions it holds, deletes `Deno` and `process` from its global object (Pyodide then
 * takes it for the web worker it is and builds no bridge to Deno's APIs) and loads the interpreter
 * (interpreter.ts: fetch serving only those files, the memory cap, no `js`). Deno's permissions
 * stay the boundary underneath: nothing but reading that folder is granted.
 * Messages: `{ready, startup_ms, permissions}` or `{failed}`, then `{code, payload}` in and a
 * BlockAnswer out.
 */
import { PYODIDE_FILES, startInterpreter, type Interpreter, type PyodideFiles } from './interpreter.js';

interface DenoLike {
  readFile(path: URL): Promise<Uint8Array>;
  permissions: {
    querySync(descriptor: { name: string; path?: string; host?: string; command?: string; variable?: string }): {
      state: string;
    };
  };
}

interface Start {
  indexURL: string;
  interrupt: SharedArrayBuffer;
  maxPrintBytes: number;
  maxMemoryBytes: number;
}

const scope = globalThis as unknown as {
  postMessage(message: unknown): void;
  addEventListener(type: 'message', listener: (event: { data: unknown }) => void): void;
};
let interpreter: Interpreter | undefined;

scope.addEventListener('message', (event) => {
  const data = event.data as { start?: Start; code?: string; payload?: string };
  if (data.start !== undefined) {
    start(data.start).then(
      (message) => scope.postMessage(message),
      (error: Error) => scope.postMessage({ failed: error.message }),
    );
    return;
  }
  scope.postMessage(interpreter!.run(data.code!, data.payload!));
});

async function start(options: Start): Promise<object> {
  const deno = (globalThis as unknown as { Deno: DenoLike }).Deno;
  const entries = await Promise.all(
    PYODIDE_FILES.map(async (name) => [name, await deno.readFile(new URL(name, options.indexURL))] as const),
  );
  const files = Object.fromEntries(entries) as unknown as PyodideFiles;
  const permissions = Object.fromEntries(
    [
      ['net', { name: 'net' }],
      ['run', { name: 'run' }],
      ['env', { name: 'env' }],
      ['write', { name: 'write' }],
      ['ffi', { name: 'ffi' }],
      ['sys', { name: 'sys' }],
      ['read_root', { name: 'read', path: '/' }],
    ].map(([what, descriptor]) => [what, deno.permissions.querySync(descriptor as { name: string }).state]),
  );
  interpreter = await startInterpreter({
    indexURL: options.indexURL,
    files,
    hostGlobals: ['Deno', 'process', 'require', 'WebSocket', 'EventSource', 'navigator', 'BroadcastChannel'],
    interrupt: options.interrupt,
    maxPrintBytes: options.maxPrintBytes,
    maxMemoryBytes: options.maxMemoryBytes,
  });
  return { ready: true, startup_ms: interpreter.startup_ms, permissions };
}
