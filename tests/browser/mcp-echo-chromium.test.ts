/**
 * Issue 24 cause 6 in headless Chromium: the engine bundled into a page calls an HTTP MCP server on
 * 127.0.0.1 (CORS on) that echoes the host secret, and the tool loop's next model request goes to a
 * model server on 127.0.0.1 that records each body (tests/support/mcp-echo-agent.ts, shared with
 * the Node and Deno tests). No request carries the secret or any prefix of it of two characters or more.
 */
import * as esbuild from 'esbuild';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error plain ESM build helper without types
import { baseOptions } from '../../build/shared.mjs';
import { CHROMIUM, runInChromiumPage } from '../support/chromium-page.js';
import {
  ECHO_REDACTED,
  ECHO_SECRET,
  echoOutcome,
  startEchoServers,
  type EchoServers,
} from '../support/mcp-echo-agent.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** The page: one run of the echo agent; leaves `echoResult`. */
const entry = (agent: string) => `import { loadAgent, runAgent } from './src/index.ts';
const SECRET = ${JSON.stringify(ECHO_SECRET)};
const handle = runAgent(loadAgent(${JSON.stringify(agent)}, { file: 'echo.yaml' }), { goal: 'look it up' }, { secrets: { demo_token: SECRET } });
const events = [];
for await (const event of handle) events.push(event);
const result = await handle.result;
globalThis.echoResult = {
  status: result.status,
  error: result.error,
  secretInRun: JSON.stringify({ result, events }).includes(SECRET),
  inBrowser: typeof window === 'object' && typeof process === 'undefined',
};`;

describe.skipIf(!existsSync(CHROMIUM))('an MCP echo of a secret, in Chromium', () => {
  let servers: EchoServers;
  beforeAll(async () => {
    servers = await startEchoServers({ cors: true });
  });
  afterAll(async () => {
    await servers?.close();
  });

  it('the next model request carries [REDACTED]; the model server never receives the secret or a prefix of it', async () => {
    const bundle = await esbuild.build(
      baseOptions({
        stdin: { contents: entry(servers.agent), resolveDir: ROOT, sourcefile: 'echo-page.ts', loader: 'ts' },
        platform: 'browser',
        write: false,
      }),
    );
    const { value, errors } = await runInChromiumPage(bundle.outputFiles![0]!.text, 'echoResult', 120_000);
    expect(errors).toEqual([]);
    const inPage = value as { status: string; error?: unknown; secretInRun: boolean; inBrowser: boolean };
    expect(inPage, JSON.stringify(inPage.error)).toMatchObject({
      status: 'completed',
      secretInRun: false,
      inBrowser: true,
    });
    expect(echoOutcome(servers)).toEqual(ECHO_REDACTED);
  }, 180_000);
});
