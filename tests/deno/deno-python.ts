/**
 * Run by tests/deno/deno-python.test.ts in real Deno (bundled): the Deno Python sandbox
 * (adapters/pyodide/deno-python.ts) on TEA's wrapper semantics and hostile blocks. Prints one JSON
 * line: the worker's permissions and, per case, `{ok: result}` or `{code, budget, message}`.
 * Arguments: Pyodide's folder, the bundled worker's path.
 */
import { createDenoPythonSandbox } from '../../adapters/pyodide/deno-python.js';
import { PYTHON_CASES } from './deno-python-cases.js';

const deno = (globalThis as unknown as { Deno: { args: string[]; exit(code: number): never } }).Deno;
const [pyodideDir, workerPath] = deno.args as [string, string];
const reports: Record<string, unknown>[] = [];
const sandbox = createDenoPythonSandbox({
  pyodideDir,
  workerUrl: new URL(`file://${workerPath}`),
  timeoutMs: 3000,
  printBytes: 4096,
  resultBytes: 64 * 1024,
  memoryBytes: 192 * 1024 * 1024,
  onReady: (report) => reports.push(report),
});
const results: Record<string, unknown> = {};
for (const [name, code] of Object.entries(PYTHON_CASES)) {
  const printed: string[] = [];
  try {
    const value = await sandbox
      .compile(code, { node: 'n', line: 10 })
      .run(
        { state: { items: [1, 2, 3], text: 'a b c' }, variables: { greeting: 'hi' } },
        { onPrint: (line) => printed.push(line) },
      );
    results[name] = { ok: value, printed: printed.length > 3 ? printed.length : printed };
  } catch (error) {
    const failure = error as {
      code?: string;
      message: string;
      details?: Record<string, unknown>;
      location?: { line?: number };
    };
    results[name] = {
      code: failure.code,
      budget: failure.details?.['budget'],
      message: failure.message.slice(0, 200),
      line: failure.location?.line,
    };
  }
}
sandbox.close();
console.log(JSON.stringify({ permissions: reports[0]?.['permissions'], workers: reports.length, results }));
// A worker terminated inside a loop that swallowed the interrupt keeps Deno's event loop alive (not its CPU): exit.
deno.exit(0);
