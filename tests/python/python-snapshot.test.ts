/**
 * The start-up snapshot of the Node Python process (cli/python/python-process.ts): the first start
 * boots Python and keeps a snapshot of the stripped interpreter; a later start restores it and
 * answers exactly as a cold one (TEA's wrapper, the sandbox's refusals); a snapshot Pyodide cannot
 * use is replaced, never trusted. Speaks the process's JSON lines directly (as python-sandbox.ts
 * does) to see `from_snapshot`. Needs `dist/` and the optional `pyodide` package.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { findPyodide } from '../../cli/python/python-sandbox.js';

const pyodideDir = findPyodide();
const processScript = path.join(import.meta.dirname, '../../dist/python-process.js');
const folder = mkdtempSync(path.join(os.tmpdir(), 'tea-python-snapshot-'));
const snapshotFile = path.join(folder, 'nested', 'interpreter.snapshot');
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const LONG = 240_000;
const BLOCKS = [
  'items = state.get("items", [])\nreturn {"total": sum(items), "hello": variables["greeting"], "day": datetime.date(2024, 1, 2).isoformat()}',
  'import re\nwords = re.findall(r"\\w+", state["text"])\ncount = len(words)',
  'import os\nreturn {"system": os.system("true"), "root": sorted(os.listdir("/"))}',
  'import js\nreturn {}',
  'import pyodide_js\nreturn {}',
];

interface Answer {
  id: number;
  answer?: string;
  from_snapshot?: boolean;
  snapshot_note?: string;
  fatal?: string;
}

/** One process, every block in turn; its answers. */
async function runProcess(): Promise<Answer[]> {
  const child = spawn(process.execPath, ['--disallow-code-generation-from-strings', processScript], {
    env: { TEA_EDGE_PYODIDE_DIR: pyodideDir!, TEA_EDGE_PYTHON_SNAPSHOT: snapshotFile },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const answers: Answer[] = [];
  const done = new Promise<void>((resolve) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      answers.push(JSON.parse(line) as Answer);
      if (answers.length === BLOCKS.length) resolve();
    });
  });
  for (const [index, code] of BLOCKS.entries())
    child.stdin.write(
      JSON.stringify({
        id: index + 1,
        code,
        payload: JSON.stringify({ state: { items: [1, 2], text: 'a b' }, variables: { greeting: 'hi' } }),
        timeout_ms: 120_000,
      }) + '\n',
    );
  await done;
  child.stdin.end();
  return answers;
}

const results = (answers: Answer[]) => answers.map((answer) => answer.fatal ?? JSON.parse(answer.answer!));

describe.skipIf(pyodideDir === undefined)('the Python start-up snapshot (Node)', () => {
  it('the first start makes it, a later start restores it and answers as the cold one; an unusable one is replaced', {
    timeout: LONG,
  }, async () => {
    const cold = await runProcess();
    expect(cold[0]).toMatchObject({ from_snapshot: false });
    expect(cold[0]!.snapshot_note).toBeUndefined();
    expect(existsSync(snapshotFile)).toBe(true);
    expect(results(cold).slice(0, 3)).toEqual([
      { ok: true, result: { total: 3, hello: 'hi', day: '2024-01-02' } },
      { ok: true, result: { words: ['a', 'b'], count: 2 } },
      { ok: true, result: { system: -1, root: ['dev', 'home', 'lib', 'proc', 'tmp'] } },
    ]);
    for (const refused of results(cold).slice(3))
      expect(refused).toMatchObject({
        ok: false,
        kind: 'error',
        message: expect.stringMatching(/^ModuleNotFoundError/),
      });

    const restored = await runProcess();
    expect(restored[0]).toMatchObject({ from_snapshot: true });
    expect(results(restored)).toEqual(results(cold));

    // Another build's snapshot, or a cut one: Pyodide refuses it, the process starts cold and keeps a new one.
    writeFileSync(snapshotFile, readFileSync(snapshotFile).subarray(0, 4096));
    const replaced = await runProcess();
    expect(replaced[0]).toMatchObject({ from_snapshot: false, snapshot_note: expect.stringContaining('not usable') });
    expect(results(replaced)).toEqual(results(cold));
    expect(readFileSync(snapshotFile).length).toBeGreaterThan(4096);
  });
});
