/**
 * The real-server transcripts in Deno: starts the transcript server in Node, spawns the `deno`
 * binary (tests/support/deno-binary.ts) on deno-transcripts.ts, and checks every case passed there.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTranscriptServer, type TranscriptServer } from '../support/transcript-server.js';
import { DENO_BINARY } from '../support/deno-binary.js';

const root = path.resolve(import.meta.dirname, '../..');
const deno = DENO_BINARY;
let server: TranscriptServer;

beforeAll(async () => {
  server = await startTranscriptServer();
});
afterAll(() => server.close());

describe('the model client in Deno', () => {
  it('comes out of every real-server transcript as expected (as written and re-cut)', async () => {
    const { stdout } = await promisify(execFile)(
      deno,
      [
        'run',
        '--quiet',
        '--allow-net',
        '--allow-env',
        '--sloppy-imports',
        '--import-map',
        'tests/deno/import-map.json',
        'tests/deno/deno-transcripts.ts',
      ],
      {
        cwd: root,
        timeout: 120_000,
        env: { ...process.env, TRANSCRIPT_SERVER_URL: server.url, DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' },
      },
    );
    const outcome = JSON.parse(stdout.trim().split('\n').pop()!) as {
      transcripts: number;
      results: { name: string; status: string; error?: string }[];
    };
    expect(outcome.results.filter((result) => result.status === 'failed')).toEqual([]);
    expect(outcome.transcripts).toBeGreaterThanOrEqual(30);
    expect(outcome.results.filter((result) => result.status === 'passed').length).toBeGreaterThanOrEqual(
      outcome.transcripts,
    );
  }, 150_000);
});
