/**
 * Python blocks in real Deno (adapters/pyodide/deno-python.ts): TEA's wrapper semantics and the
 * hostile blocks of tests/python/python-sandbox.test.ts, each interpreter in a Deno Worker whose
 * only permission is reading Pyodide's folder, though the Deno process itself holds net, env, run
 * and write: the worker reports none of them granted. Needs the optional `pyodide` package.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import * as esbuild from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { findPyodide } from '../../cli/python/python-sandbox.js';
import { DENO_BINARY } from '../support/deno-binary.js';
// @ts-expect-error plain ESM build helper without types
import { baseOptions } from '../../build/shared.mjs';

const root = path.resolve(import.meta.dirname, '../..');
const pyodideDir = findPyodide();
const directory = mkdtempSync(path.join(tmpdir(), 'tea-deno-python-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

interface Outcome {
  ok?: unknown;
  printed?: unknown;
  code?: string;
  budget?: string;
  message?: string;
  line?: number;
}

describe.skipIf(pyodideDir === undefined)(
  'Python blocks in Deno (a Worker with no permissions but reading Pyodide)',
  () => {
    it("runs TEA's blocks as on Node and refuses every hostile one", async () => {
      const script = path.join(directory, 'deno-python.js');
      const worker = path.join(directory, 'deno-python-worker.js');
      await esbuild.build(
        baseOptions({
          entryPoints: [path.join(root, 'tests/deno/deno-python.ts')],
          platform: 'browser',
          outfile: script,
        }),
      );
      await esbuild.build(
        baseOptions({
          entryPoints: [path.join(root, 'adapters/pyodide/deno-python-worker.ts')],
          platform: 'browser',
          outfile: worker,
        }),
      );
      const { stdout } = await promisify(execFile)(
        DENO_BINARY,
        [
          'run',
          '--quiet',
          '--unstable-worker-options',
          `--allow-read=${pyodideDir},${directory}`,
          '--allow-net',
          '--allow-env',
          '--allow-run',
          `--allow-write=${directory}`,
          script,
          pyodideDir!,
          worker,
        ],
        {
          cwd: root,
          timeout: 600_000,
          maxBuffer: 1 << 24,
          env: { ...process.env, DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' },
        },
      );
      const { permissions, results } = JSON.parse(stdout.trim().split('\n').pop()!) as {
        permissions: Record<string, string>;
        results: Record<string, Outcome>;
      };
      for (const [what, state] of Object.entries(permissions)) expect(`${what}: ${state}`).not.toBe(`${what}: granted`);
      expect(Object.keys(permissions).sort()).toEqual(['env', 'ffi', 'net', 'read_root', 'run', 'sys', 'write']);

      expect(results['tea_return']).toEqual({
        ok: { total: 6, hello: 'hi', doubled: [2, 4, 6], year_ok: true },
        printed: ['got 3'],
      });
      expect(results['tea_locals']).toEqual({ ok: { words: ['a', 'b', 'c'], count: 3 }, printed: [] });
      expect(results['leak_seen']).toEqual({ ok: { seen: false }, printed: [] });
      expect(results['error_line']).toMatchObject({
        code: 'PYTHON_ERROR',
        message: expect.stringContaining('ZeroDivisionError'),
        line: 12,
      });
      expect(results['syntax']).toMatchObject({ code: 'PYTHON_SYNTAX' });

      expect(results['os_system']).toMatchObject({ ok: { r: -1 } });
      expect(results['etc_passwd']).toMatchObject({ ok: { r: 'FileNotFoundError' } });
      expect(results['list_root']).toMatchObject({ ok: { r: false } });
      // Emscripten's stock environment only: nothing of the host's (the Deno process has --allow-env).
      expect(results['environment']).toMatchObject({ ok: { r: ['LD_LIBRARY_PATH', 'PYTHONINSPECT'] } });
      expect(results['subprocess']).toMatchObject({ code: 'PYTHON_ERROR', message: expect.stringMatching(/OSError/) });
      expect(results['import_js']).toMatchObject({
        code: 'PYTHON_ERROR',
        message: expect.stringMatching(/ModuleNotFoundError/),
      });
      expect(results['pyodide_ffi']).toMatchObject({
        code: 'PYTHON_ERROR',
        message: expect.stringMatching(/ModuleNotFoundError|ImportError/),
      });
      expect(results['socket']).toMatchObject({ code: 'PYTHON_ERROR', message: expect.stringMatching(/OSError/) });
      expect(results['recursion']).toMatchObject({
        code: 'PYTHON_ERROR',
        message: expect.stringMatching(/RecursionError/),
      });

      expect(results['huge_print']).toMatchObject({ ok: {} });
      expect(results['huge_return']).toMatchObject({ code: 'PYTHON_BUDGET', budget: 'result_bytes' });
      expect(results['memory_bomb']).toMatchObject({ code: 'PYTHON_BUDGET', budget: 'memory' });
      expect(results['after_memory']).toMatchObject({ ok: { after: 1 } });
      expect(results['infinite_loop']).toMatchObject({ code: 'PYTHON_BUDGET', budget: 'time' });
      expect(results['after_loop']).toMatchObject({ ok: { after: 2 } });
      expect(results['swallowing_loop']).toMatchObject({ code: 'PYTHON_BUDGET', budget: 'time' });
      expect(results['after_swallow']).toMatchObject({ ok: { after: 3 } });
    }, 660_000);
  },
);
