/**
 * Runs that survive their `tea-edge serve` process (Node, worker/node/durable-fs.ts), with real child
 * processes of the built CLI on one trace directory: a server is killed (SIGKILL) in the middle of a
 * run; two new servers start on the same directory. Exactly one of them continues the run, from its
 * last node checkpoint, to the final state of an undisturbed run; the nodes finished before the
 * checkpoint are not asked again (counted at the mock model); 20 resume requests to both servers
 * are refused; a follower that was reading from the killed server reconnects to a new one with
 * Last-Event-ID and sees every event once, in order.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.js';
import { startServe } from '../support/run-cli.js';
import { forEachSseEvent, relayRequests } from './durable-harness.js';

const ANSWER = 'The answer is forty-two, give or take a towel or two, really.';
let mock: MockOpenAI;
let directory: string;
const children: ChildProcess[] = [];

/** Starts `tea-edge serve` on the shared trace directory; resolves with its URL once it listens. */
async function startServer(): Promise<{ url: string; child: ChildProcess }> {
  const { url, child } = await startServe(
    ['--port', '0', '--agents', 'tests/worker/agents', '--trace-dir', path.join(directory, 'traces')],
    {
      TEA_LLM_BASE_URL: mock.url,
      TEA_LLM_MODEL: 'mock-model',
      TEA_RUN_LEASE_MS: '1000',
    },
  );
  children.push(child);
  return { url, child };
}

async function post(url: string, route: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${url}${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as any };
}

async function storedEvents(url: string, runId: string): Promise<any[]> {
  const text = await (await fetch(`${url}/runs/${runId}/events`)).text();
  return text.trim() === ''
    ? []
    : text
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
}

/** Reads SSE ids into `seen` as they come, until the stream ends or breaks. */
async function follow(url: string, runId: string, seen: number[]): Promise<void> {
  const headers: Record<string, string> = { accept: 'text/event-stream' };
  if (seen.length > 0) headers['last-event-id'] = String(seen.at(-1));
  try {
    const response = await fetch(`${url}/runs/${runId}/events`, { headers });
    await forEachSseEvent(response.body, (id) => seen.push(id));
  } catch {
    // The server was killed under the follower.
  }
}

async function until<T>(probe: () => Promise<T | undefined>, what: string): Promise<T> {
  for (let attempt = 0; attempt < 800; attempt++) {
    const found = await probe();
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`never saw ${what}`);
}

beforeAll(async () => {
  mock = await startMockOpenAI({ replies: [ANSWER], chunkSize: 2, chunkDelayMs: 25 });
  directory = await mkdtemp(path.join(tmpdir(), 'tea-edge-serve-restart-'));
});

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await mock?.close();
  await rm(directory, { recursive: true, force: true });
});

describe('tea-edge serve is killed mid-run', () => {
  it('one of two new servers on the same trace directory continues the run from its last node checkpoint', async () => {
    const first = await startServer();
    const undisturbed = await post(first.url, '/agents/relay/runs', { input: { topic: 'tea' } });
    expect(undisturbed.json.status).toBe('completed');

    const from = mock.requests.length;
    const started = await post(
      first.url,
      '/agents/relay/runs',
      { input: { topic: 'tea' } },
      { prefer: 'respond-async' },
    );
    expect(started.status).toBe(202);
    const runId = started.json.run_id as string;
    const seen: number[] = [];
    const following = follow(first.url, runId, seen);
    await until(
      async () =>
        (await storedEvents(first.url, runId)).some((event) => event.type === 'answer_chunk' && event.node === 'third')
          ? true
          : undefined,
      'third streaming',
    );
    first.child.kill('SIGKILL');
    await following;
    expect(relayRequests(mock, from)).toEqual({ first: 1, second: 1, third: 1 });
    const seenBefore = seen.length;
    expect(seenBefore).toBeGreaterThan(0);

    const [left, right] = await Promise.all([startServer(), startServer()]);
    const resumes = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        post(index % 2 === 0 ? left.url : right.url, `/runs/${runId}/resume`, {}),
      ),
    );
    expect(resumes.map((response) => response.status)).toEqual(Array.from({ length: 20 }, () => 409));

    // The follower comes back on one of the new servers, from the last id it saw.
    await follow(left.url, runId, seen);
    const record = await until(async () => {
      const body = (await (await fetch(`${right.url}/runs/${runId}`)).json()) as any;
      return body.status !== 'running' ? body : undefined;
    }, 'the run finish');
    expect(record).toMatchObject({ status: 'completed', agent: 'relay' });

    const log = await storedEvents(right.url, runId);
    expect(log.at(-1)).toMatchObject({ type: 'done', data: { status: 'completed', state: undisturbed.json.state } });
    expect(log.map((event) => event.seq)).toEqual(log.map((_, index) => index + 1));
    // Exactly one server continued it, once.
    expect(log.filter((event) => event.type === 'log' && event.data.source === 'durable')).toHaveLength(1);
    expect(log.filter((event) => event.type === 'node_start').map((event) => event.node)).toEqual([
      'first',
      'second',
      'third',
      'third',
      'fourth',
    ]);
    expect(relayRequests(mock, from)).toEqual({ first: 1, second: 1, third: 2, fourth: 1 });
    // The follower saw every event once, in order, across the crash.
    expect(seen.length).toBeGreaterThan(seenBefore);
    expect(seen).toEqual(log.map((event) => event.seq));
  }, 90_000);
});
