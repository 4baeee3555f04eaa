/**
 * Durable runs in Miniflare: a run paused by interrupt_before / interrupt_after is resumed by
 * requests to OTHER Miniflare instances that share the persisted KV, and ends with the same state
 * as the same agent run without pauses. Also: resuming finished and unknown runs, and concurrent
 * resumes (in one isolate, and in two instances at once).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleTestWorker, call, startWorker } from './miniflare-harness.js';

let script: string;
let kvDirectory: string;
const running: Miniflare[] = [];

async function instance(bindings: Record<string, string> = {}): Promise<Miniflare> {
  const miniflare = await startWorker(script, { kvPersist: kvDirectory, bindings });
  running.push(miniflare);
  return miniflare;
}

async function stop(miniflare: Miniflare): Promise<void> {
  running.splice(running.indexOf(miniflare), 1);
  await miniflare.dispose();
}

beforeAll(async () => {
  script = await bundleTestWorker();
  kvDirectory = await mkdtemp(path.join(tmpdir(), 'tea-edge-kv-'));
});

afterAll(async () => {
  for (const miniflare of running.splice(0)) await miniflare.dispose();
  await rm(kvDirectory, { recursive: true, force: true });
});

describe('durable runs across Miniflare instances sharing persisted KV', () => {
  it('pauses on one instance, continues on a second and finishes on a third, with the uninterrupted final state', async () => {
    const first = await instance();
    const started = await call(first, 'POST', '/agents/counter/runs', { input: { count: 1 } });
    expect(started.json).toMatchObject({
      status: 'interrupted',
      stop_reason: 'interrupt_before',
      interrupt: { kind: 'interrupt', node: 'review', position: 'before' },
    });
    const runId = started.json.run_id as string;
    await stop(first);

    const second = await instance();
    expect((await call(second, 'GET', `/runs/${runId}`)).json).toMatchObject({
      status: 'interrupted',
      agent: 'counter',
    });
    const middle = await call(second, 'POST', `/runs/${runId}/resume`, {});
    expect(middle.json).toMatchObject({
      run_id: runId,
      status: 'interrupted',
      stop_reason: 'interrupt_after',
      interrupt: { node: 'finish', position: 'after' },
    });
    await stop(second);

    const third = await instance();
    const finished = await call(third, 'POST', `/runs/${runId}/resume`, {});
    expect(finished.json).toMatchObject({ run_id: runId, status: 'completed', stop_reason: 'completed' });
    const reference = await call(third, 'POST', '/agents/counter-straight/runs', { input: { count: 1 } });
    expect(reference.json.status).toBe('completed');
    expect(finished.json.state).toEqual(reference.json.state);

    const record = await call(third, 'GET', `/runs/${runId}`);
    expect(record.json).toMatchObject({ status: 'completed', agent: 'counter' });
    const events = (await call(third, 'GET', `/runs/${runId}/events`)).text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    expect(events.filter((event) => event.type === 'interrupt')).toHaveLength(2);
    expect(events.filter((event) => event.type === 'done').map((event) => event.data.status)).toEqual([
      'interrupted',
      'interrupted',
      'completed',
    ]);

    const again = await call(third, 'POST', `/runs/${runId}/resume`, {});
    expect(again.status).toBe(409);
    expect(again.json.error.code).toBe('CONFLICT');
    expect((await call(third, 'POST', '/runs/never-was/resume', {})).json.error.code).toBe('NOT_FOUND');
    await stop(third);
  });

  it('merges state_update on resume', async () => {
    const miniflare = await instance();
    const started = await call(miniflare, 'POST', '/agents/counter/runs', { input: { count: 1 } });
    const resumed = await call(miniflare, 'POST', `/runs/${started.json.run_id}/resume`, {
      state_update: { bonus: 5 },
    });
    expect(resumed.json).toMatchObject({ status: 'interrupted', state: { total: 29, bonus: 5 } });
    await stop(miniflare);
  });

  it('two concurrent resumes in one isolate: one runs, the other is a 409', async () => {
    const miniflare = await instance();
    const started = await call(miniflare, 'POST', '/agents/counter/runs', { input: {} });
    const runId = started.json.run_id as string;
    const pause = { checkpoint_id: started.json.interrupt.checkpoint_id };
    const results = await Promise.all([
      call(miniflare, 'POST', `/runs/${runId}/resume`, pause),
      call(miniflare, 'POST', `/runs/${runId}/resume`, pause),
    ]);
    expect(results.map((result) => result.status).sort()).toEqual([200, 409]);
    expect(results.find((result) => result.status === 409)!.json.error.code).toBe('CONFLICT');
    await stop(miniflare);
  });

  it('two concurrent resumes on two instances: the KV claim lets only one run', async () => {
    const left = await instance();
    const right = await instance();
    const started = await call(left, 'POST', '/agents/counter/runs', { input: {} });
    const runId = started.json.run_id as string;
    const pause = { checkpoint_id: started.json.interrupt.checkpoint_id };
    const results = await Promise.all([
      call(left, 'POST', `/runs/${runId}/resume`, pause),
      call(right, 'POST', `/runs/${runId}/resume`, pause),
    ]);
    // Exactly one resume runs. The other loses the claim (409); on a loaded machine the two
    // Miniflare instances' shared on-disk KV can also refuse its concurrent write, which the loser
    // reports as STORAGE_ERROR (503) — it still does not run.
    const statuses = results.map((result) => result.status).sort();
    expect(statuses[0]).toBe(200);
    expect([409, 503]).toContain(statuses[1]);
    const loser = results.find((result) => result.status !== 200)!;
    expect(['CONFLICT', 'STORAGE_ERROR']).toContain(loser.json.error.code);
    const events = (await call(left, 'GET', `/runs/${runId}/events`)).text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(events.filter((event) => event.type === 'node_start' && event.node === 'review')).toHaveLength(1);
    await stop(left);
    await stop(right);
  });

  it('a tier-3 tool waits for approval; the approval, sent to another instance, runs it; roles gate the tool', async () => {
    const tokens = { API_TOKENS: 'op-token:operator,view-token:viewer' };
    const operator = { authorization: 'Bearer op-token' };
    const first = await instance(tokens);
    const paused = await call(first, 'POST', '/agents/approver/runs', { input: {} }, operator);
    expect(paused.json).toMatchObject({
      status: 'interrupted',
      stop_reason: 'confirmation',
      interrupt: { kind: 'tool_confirmation', tool: 'math.calculate', arguments: { expression: '6 * 7' } },
    });
    const denied = await call(first, 'POST', '/agents/approver/runs', { input: {} }, operator);
    await stop(first);

    const second = await instance(tokens);
    const approved = await call(second, 'POST', `/runs/${paused.json.run_id}/resume`, { approval: true }, operator);
    expect(approved.json).toMatchObject({
      status: 'completed',
      state: { answer: 'done', observations: ['{"result":42}', 'Goal achieved.'] },
    });
    const refused = await call(
      second,
      'POST',
      `/runs/${denied.json.run_id}/resume`,
      { approval: { approved: false } },
      operator,
    );
    expect(refused.json.status).toBe('completed');
    expect(refused.json.state.observations[0]).toMatch(/denied/i);
    const viewer = await call(
      second,
      'POST',
      '/agents/approver/runs',
      { input: {} },
      { authorization: 'Bearer view-token' },
    );
    expect(viewer.json.status).toBe('completed');
    expect(viewer.json.state.observations[0]).toContain('Access denied');
    await stop(second);
  });
});
