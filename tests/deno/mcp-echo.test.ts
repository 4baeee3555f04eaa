/**
 * Issue 24 cause 6 in Deno (tests/deno/mcp-echo.ts): a secret an MCP server echoes back is redacted
 * in the next model request. Both servers are real HTTP servers on 127.0.0.1 in this process
 * (tests/support/mcp-echo-agent.ts, shared with the Node and Chromium tests); the run is in Deno,
 * allowed to reach 127.0.0.1 only. No request the model server received carries the secret or any
 * prefix of it of two characters or more.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import * as esbuild from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DENO_BINARY } from '../support/deno-binary.js';
import {
  ECHO_REDACTED,
  ECHO_SECRET,
  echoOutcome,
  startEchoServers,
  type EchoServers,
} from '../support/mcp-echo-agent.js';
// @ts-expect-error plain ESM build helper without types
import { baseOptions } from '../../build/shared.mjs';

const root = path.resolve(import.meta.dirname, '../..');

describe('an MCP echo of a secret, in Deno', () => {
  let directory: string;
  let script: string;
  let servers: EchoServers;
  beforeAll(async () => {
    directory = mkdtempSync(path.join(tmpdir(), 'tea-deno-mcp-echo-'));
    script = path.join(directory, 'mcp-echo.js');
    await esbuild.build(
      baseOptions({ entryPoints: [path.join(root, 'tests/deno/mcp-echo.ts')], platform: 'browser', outfile: script }),
    );
    servers = await startEchoServers();
  }, 60_000);
  afterAll(async () => {
    await servers?.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('the next model request carries [REDACTED]; the model server never receives the secret or a prefix of it', async () => {
    const { stdout } = await promisify(execFile)(
      DENO_BINARY,
      ['run', '--quiet', '--allow-net=127.0.0.1', script, servers.agent, ECHO_SECRET],
      {
        cwd: root,
        timeout: 120_000,
        env: { ...process.env, DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' },
      },
    );
    const inDeno = JSON.parse(stdout.trim().split('\n').pop()!) as {
      status: string;
      error?: unknown;
      secretInRun: boolean;
      inDeno: boolean;
    };
    expect(inDeno, JSON.stringify(inDeno.error)).toMatchObject({
      status: 'completed',
      secretInRun: false,
      inDeno: true,
    });
    expect(echoOutcome(servers)).toEqual(ECHO_REDACTED);
  }, 150_000);
});
