/**
 * The Deno KV stores, tested for real: spawns the `deno` binary of .cache/deno/ on
 * deno-kv-conformance.ts, which runs the shared storage conformance suite inside Deno over
 * `Deno.openKv(':memory:')`, and checks every case passed.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { DENO_BINARY } from '../support/deno-binary.js';

const root = path.resolve(import.meta.dirname, '../..');
const deno = DENO_BINARY;

interface Outcome {
  shimFails: boolean;
  results: Array<{ name: string; status: string; error?: string }>;
}

describe('deno-kv adapter in Deno', () => {
  it('passes the storage conformance suite (default and 2 KiB values) and the fault case', async () => {
    const { stdout } = await promisify(execFile)(
      deno,
      [
        'run',
        '--quiet',
        '--unstable-kv',
        '--sloppy-imports',
        '--import-map',
        'tests/deno/import-map.json',
        'tests/deno/deno-kv-conformance.ts',
      ],
      { cwd: root, timeout: 120_000, env: { ...process.env, DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' } },
    );
    const outcome = JSON.parse(stdout.trim().split('\n').pop()!) as Outcome;
    expect(outcome.shimFails).toBe(true);
    const failed = outcome.results.filter((result) => result.status === 'failed');
    expect(failed).toEqual([]);
    expect(outcome.results.filter((result) => result.status === 'passed').length).toBeGreaterThanOrEqual(35);
  }, 150_000);
});
