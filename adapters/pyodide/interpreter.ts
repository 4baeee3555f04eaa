/**
 * One Pyodide interpreter inside a thread or worker that holds nothing else (issue 26), shared by
 * the Node thread (cli/python/python-worker.ts) and the Deno worker (deno-python-worker.ts). No
 * host API here: the host reads Pyodide's files, deletes its own globals (`hostGlobals`) and hands
 * both over. Then:
 *
 * - `fetch` is replaced by one that serves only those in-memory files, and nothing once Pyodide
 *   has loaded: the thread has no network, and Pyodide takes it for a module web worker (no
 *   bridge to a host file system or processes).
 * - The wasm binary's memory maximum is rewritten to the cap (wasm-memory-cap.ts): the engine
 *   refuses to grow past it, Python sees a MemoryError.
 * - `js` is an empty object, and `js`/`pyodide_js` and their import finder are removed once
 *   loaded, so Python reaches no JavaScript.
 * - With `snapshot`, the interpreter is restored from it instead of booting Python; with
 *   `makeSnapshot`, it boots and then makes one (common modules imported, before the JavaScript
 *   modules are unregistered: Pyodide's snapshot expects them in their slots).
 *
 * Only JSON strings cross: `run(code, payload)` answers TEA's wrapper's JSON (python-runner.ts).
 */
import { PYTHON_RUNNER, PYTHON_WARM_IMPORTS } from './python-runner.js';
import { capWasmMemory } from './wasm-memory-cap.js';

export interface PyodideFiles {
  'pyodide.asm.wasm': Uint8Array;
  'python_stdlib.zip': Uint8Array;
  'pyodide-lock.json': Uint8Array;
}

/** The files Pyodide fetches while it loads (pyodide.mjs and pyodide.asm.mjs are imported as modules). */
export const PYODIDE_FILES: ReadonlyArray<keyof PyodideFiles> = [
  'pyodide.asm.wasm',
  'python_stdlib.zip',
  'pyodide-lock.json',
];

export interface InterpreterOptions {
  /** The folder URL of Pyodide (ends with `/`): where pyodide.mjs is imported from. */
  indexURL: string;
  files: PyodideFiles;
  /** The host's globals to delete before Pyodide looks at the environment. */
  hostGlobals: readonly string[];
  interrupt: SharedArrayBuffer;
  maxPrintBytes: number;
  maxMemoryBytes: number;
  snapshot?: Uint8Array;
  makeSnapshot?: boolean;
}

export interface BlockAnswer {
  answer: string;
  printed: string[];
  print_cut: boolean;
  /** The block ended in a MemoryError: the interpreter's memory has grown to the cap (it never shrinks). */
  memory_error: boolean;
}

export interface Interpreter {
  run(code: string, payload: string): BlockAnswer;
  startup_ms: number;
  from_snapshot: boolean;
  snapshot?: Uint8Array;
}

interface Pyodide {
  runPython(code: string): unknown;
  setInterruptBuffer(buffer: Int32Array): void;
  unregisterJsModule(name: string): void;
  makeMemorySnapshot(): Uint8Array;
  globals: { get(name: string): (...args: unknown[]) => unknown };
}

/** A snapshot Pyodide refused (another build, a cut file): the host drops it and starts cold. */
export class SnapshotUnusable extends Error {}

export async function startInterpreter(options: InterpreterOptions): Promise<Interpreter> {
  const files = new Map<string, Uint8Array>(Object.entries(options.files));
  files.set('pyodide.asm.wasm', capWasmMemory(options.files['pyodide.asm.wasm'], options.maxMemoryBytes));
  const NativeResponse = Response;
  for (const name of options.hostGlobals) Reflect.deleteProperty(globalThis, name);
  let serveFiles = true;
  (globalThis as { fetch?: unknown }).fetch = async (url: string) => {
    const name = String(url).split('/').pop() ?? '';
    const bytes = files.get(name);
    if (!serveFiles || bytes === undefined) throw new TypeError('no network in the Python sandbox');
    return new NativeResponse(bytes as Uint8Array<ArrayBuffer>, {
      headers: { 'content-type': name.endsWith('.wasm') ? 'application/wasm' : 'application/octet-stream' },
    });
  };

  let printed: string[] = [];
  let printedBytes = 0;
  let printCut = false;
  const print = (line: string) => {
    printedBytes += line.length + 1;
    if (printedBytes > options.maxPrintBytes) printCut = true;
    else printed.push(line);
  };

  const { loadPyodide } = (await import(`${options.indexURL}pyodide.mjs`)) as {
    loadPyodide(config: object): Promise<Pyodide>;
  };
  const started = Date.now();
  const boot =
    options.snapshot !== undefined
      ? { _loadSnapshot: options.snapshot }
      : { _makeSnapshot: options.makeSnapshot === true };
  let python: Pyodide;
  try {
    python = await loadPyodide({ indexURL: options.indexURL, stdout: print, stderr: print, jsglobals: {}, ...boot });
  } catch (error) {
    if (options.snapshot !== undefined) throw new SnapshotUnusable((error as Error).message);
    throw error;
  }
  files.clear();
  serveFiles = false;
  let made: Uint8Array | undefined;
  if (options.snapshot === undefined && options.makeSnapshot === true) {
    python.runPython(PYTHON_WARM_IMPORTS);
    made = python.makeMemorySnapshot();
  }
  for (const name of ['js', 'pyodide_js']) python.unregisterJsModule(name);
  python.runPython(PYTHON_RUNNER);
  const run = python.globals.get('__tea_run');
  python.setInterruptBuffer(new Int32Array(options.interrupt));
  return {
    startup_ms: Date.now() - started,
    from_snapshot: options.snapshot !== undefined,
    ...(made !== undefined ? { snapshot: made } : {}),
    run(code, payload) {
      printed = [];
      printedBytes = 0;
      printCut = false;
      const answer = String(run(code, payload));
      // A failure is short JSON (its message is cut at 4,000 characters); only failures are read here.
      const memoryError =
        answer.startsWith('{"ok": false') && (JSON.parse(answer) as { kind?: string }).kind === 'memory';
      return { answer, printed, print_cut: printCut, memory_error: memoryError };
    },
  };
}
