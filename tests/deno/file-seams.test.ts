/**
 * The seam scenarios in Deno (tests/deno/file-seams.ts) with permissions limited to a temporary
 * folder: same outcomes as on Node; a symbolic link out of the root is FORBIDDEN, and so is a
 * write where Deno grants no write permission (with the flag to give in the message).
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import * as esbuild from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DENO_BINARY } from '../support/deno-binary.js';
// @ts-expect-error plain ESM build helper without types
import { baseOptions } from '../../build/shared.mjs';
import { exampleAgents, nodeOutcomes } from '../actions/seam-node-outcomes.js';

const root = path.resolve(import.meta.dirname, '../..');
const deno = DENO_BINARY;

describe('seam scenarios in Deno (file system, permissions)', () => {
  let directory: string;
  let script: string;
  beforeAll(async () => {
    directory = mkdtempSync(path.join(tmpdir(), 'tea-deno-files-'));
    // Bundled (as the Deno entry is): the engine's sources import package.json, which Deno loads only with an import attribute.
    script = path.join(directory, 'file-seams.js');
    await esbuild.build(
      baseOptions({ entryPoints: [path.join(root, 'tests/deno/file-seams.ts')], platform: 'browser', outfile: script }),
    );
    mkdirSync(path.join(directory, 'files'));
    mkdirSync(path.join(directory, 'readonly'));
    writeFileSync(path.join(directory, 'outside.txt'), 'secret');
    symlinkSync(path.join(directory, 'outside.txt'), path.join(directory, 'files/link.txt'));
    symlinkSync(directory, path.join(directory, 'files/outdir'));
    writeFileSync(path.join(directory, 'agents.json'), JSON.stringify(exampleAgents()));
  }, 60_000);
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it('gives the same outcomes as on Node; links out and unpermitted writes are FORBIDDEN', async () => {
    const { stdout } = await promisify(execFile)(
      deno,
      [
        'run',
        '--quiet',
        `--allow-read=${directory}`,
        `--allow-write=${path.join(directory, 'files')}`,
        script,
        path.join(directory, 'agents.json'),
        directory,
      ],
      { cwd: root, timeout: 120_000, env: { ...process.env, DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' } },
    );
    const result = JSON.parse(stdout.trim().split('\n').pop()!) as {
      outcomes: unknown;
      link: string;
      linkedFolder: string;
      readOnly: string;
      refused: string;
      warnings: string[];
    };
    expect(result.outcomes).toEqual(await nodeOutcomes());
    expect(result.link).toBe('FORBIDDEN');
    expect(result.linkedFolder).toBe('FORBIDDEN');
    expect(result.readOnly).toBe('FORBIDDEN');
    // Without the host's acceptance no store is made; each accepted one warns once, however much it serves.
    expect(result.refused).toBe('STORAGE_ERROR:racy-walk');
    expect(result.warnings).toHaveLength(2);
    expect(result.warnings[0]).toContain('ACCEPT_FILE_RACE=1');
  }, 150_000);
});
