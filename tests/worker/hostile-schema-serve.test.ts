/**
 * Issue 12 point 4 against the real Hono app on Node (worker/node.ts, what `tea-edge serve`
 * runs): an unauthenticated request whose input attacks an agent's `input_schema` (catastrophic
 * patterns, a hostile `patternProperties` key, `format: url`, a huge enum and uniqueItems) gets
 * a typed answer, and `/health` keeps answering while and after it is checked. Before the fix
 * one such request froze the whole server for tens of seconds.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve, type RunningServer } from '../../worker/node.js';

const AGENT = `name: hostile-input
description: An input_schema with patterns and formats that backtracking regex engines choke on.
input_schema:
  type: object
  properties:
    code: { type: string, pattern: '^(a+)+$' }
    csv: { type: string, pattern: '^.*,.*,.*,.*,.*,x$' }
    words: { type: string, pattern: '^(\\w+\\s?)*$' }
    letters: { type: string, pattern: '^(?:\\p{L}+\\s?)*$' }
    site: { type: string, format: url }
    mail: { type: string, format: email }
    tags:
      type: object
      patternProperties:
        '^(a|aa)*$': { type: integer }
    colours: { type: array, uniqueItems: true, items: { enum: [${Array.from({ length: 2000 }, (_, index) => `c${index}`).join(', ')}] } }
nodes:
  - name: done
    run: |
      return { ok = true }
`;

let directory: string;
let server: RunningServer;

beforeAll(async () => {
  directory = await mkdtemp(path.join(tmpdir(), 'tea-edge-hostile-'));
  await writeFile(path.join(directory, 'hostile-input.yaml'), AGENT);
  server = await serve({ port: 0, agentsDir: directory, traceDir: path.join(directory, 'traces') });
});

afterAll(async () => {
  await server?.close();
  await rm(directory, { recursive: true, force: true });
});

const json = { 'content-type': 'application/json' };

async function run(input: Record<string, unknown>): Promise<{ status: string; error?: { code: string; message: string }; state?: Record<string, unknown> }> {
  const response = await fetch(`${server.url}/agents/hostile-input/runs`, { method: 'POST', headers: json, body: JSON.stringify({ input }) });
  return (await response.json()) as { status: string; error?: { code: string; message: string } };
}

describe('tea-edge serve under a hostile input_schema attack', () => {
  it('answers the hostile run with INPUT_INVALID while /health keeps answering', async () => {
    const hostile = {
      code: `${'a'.repeat(5000)}!`,
      csv: ','.repeat(20_000),
      words: `${'word '.repeat(4000)}!`,
      letters: `${'é '.repeat(10_000)}1`,
      site: `http://${'a'.repeat(3000)}${'-'.repeat(3000)}`,
      mail: `${'a'.repeat(60)}@${'a-'.repeat(10_000)}`,
      tags: { [`${'a'.repeat(5000)}b`]: 1, [`${'a'.repeat(5000)}`]: 'not an integer' },
      colours: [...Array.from({ length: 1500 }, (_, index) => `c${index}`), 'c7'],
    };
    const attacks = Array.from({ length: 3 }, () => run(hostile));
    const health = await fetch(`${server.url}/health`);
    expect(health.status).toBe(200);
    for (const result of await Promise.all(attacks)) {
      expect(result.status).toBe('failed');
      expect(result.error?.code).toBe('INPUT_INVALID');
      for (const path of ['/code', '/csv', '/words', '/letters', '/site', '/mail', '/colours']) expect(result.error?.message).toContain(path);
      expect(result.error!.message.length).toBeLessThan(20_000);
    }
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
  }, 30_000);

  it('still validates honest input (the patterns mean what they say)', async () => {
    const result = await run({ code: 'aaa', csv: ',,,,,x', words: 'two words', letters: 'é a', site: 'https://example.com/x', mail: 'a@example.com', tags: { aa: 1 }, colours: ['c1', 'c2'] });
    expect(result.status).toBe('completed');
  }, 30_000);
});
