/**
 * The recorded tool results of durable runs on Deno (worker/deno/deno-runs.ts), inside Deno over
 * `Deno.openKv(':memory:')`, with a host-registered side-effecting tool: two "processes" (two
 * DenoRuns on one database) share a run; the first stops (hands the run over) in the middle of a
 * node after its tool calls were recorded in Deno KV; the second takes the run over, re-runs the
 * node, gets the recorded results back instead of calling the tool again, and clears the journal
 * when the run ends. Prints one JSON line; run by tests/deno/deno-runs-journal.test.ts
 * (bundled first: the engine's prompt templates are text imports only the bundler loads).
 */
import { createDenoKvStores } from '../../adapters/deno-kv/index.js';
import { listKeys } from '../../adapters/deno-kv/deno-kv-texts.js';
import type { ActionContext } from '../../src/core/action.js';
import { createActionRegistry } from '../../src/builtins.js';
import { loadAgent } from '../../src/load-agent-with-scripts.js';
import { JOURNAL_AGENT as AGENT } from '../support/journal-agent.js';
import { toAgentSource } from '../../worker/agent-source.js';
import { DenoRuns, type DenoKvQueueLike } from '../../worker/deno/deno-runs.js';
import { describe, expect, it, run } from './vitest-shim.js';

declare const Deno: { openKv(path?: string): Promise<DenoKvQueueLike & { close(): void }>; exit(code: number): never };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('deno runs: recorded tool results', () => {
  it('a run handed over mid-node is continued by the other process without calling a recorded tool again', async () => {
    const posts: Array<string | undefined> = [];
    let hang = true;
    const registry = createActionRegistry();
    registry.register({
      name: 'test.post',
      description: 'a side effect outside the run, counted',
      sideEffects: true,
      run(_params: unknown, context: ActionContext) {
        posts.push(context.idempotencyKey);
        return { receipt: `r${posts.length}` };
      },
    });
    registry.register({
      name: 'test.send_twice',
      description: 'posts twice, then waits while the test wants it to',
      async run(_params: unknown, context: ActionContext) {
        const first = (await context.callAction('test.post', {})) as { receipt: string };
        const second = (await context.callAction('test.post', {})) as { receipt: string };
        while (hang && !context.signal.aborted) await sleep(5);
        if (context.signal.aborted) throw new Error('stopped');
        return { receipts: [first.receipt, second.receipt] };
      },
    });
    const agent = loadAgent(AGENT, { file: 'journal.yaml', registry });
    const kv = await Deno.openKv(':memory:');
    const stores = createDenoKvStores(kv);
    const setup = { kv, agents: toAgentSource({ journal: agent }), ...stores, leaseMs: 60_000 };
    const leaving = new DenoRuns(setup);
    const staying = new DenoRuns(setup);

    const first = await leaving.startHere(agent, {}, {});
    const runId = first.runId;
    for (let turn = 0; turn < 400 && posts.length < 2; turn++) await sleep(5);
    expect(posts).toHaveLength(2);
    await leaving.handOver();
    await first.finished;
    hang = false;

    await staying.sweep();
    // The sweep starts the take-over without waiting for it; the run has stopped once its lease is gone.
    for (let turn = 0; turn < 400 && (await staying.running(runId)); turn++) await sleep(5);
    const events = await staying.log.eventsAfter(runId, 0);
    expect(events.at(-1)).toMatchObject({
      type: 'done',
      data: { status: 'completed', state: { n: 1, receipts: ['r1', 'r2'], finished: true } },
    });
    // Not called again: the two results came back from Deno KV, under the same keys.
    expect(posts).toEqual([`${runId}:send:2:test.post#1`, `${runId}:send:2:test.post#2`]);
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    expect(events.filter((event) => event.type === 'node_start').map((event) => event.node)).toEqual([
      'prepare',
      'send',
      'send',
      'finish',
    ]);
    const replayed = events
      .filter((event) => event.type === 'log' && (event.data as { source?: string }).source === 'durable')
      .map((event) => (event.data as { idempotency_key?: string }).idempotency_key);
    expect(replayed).toEqual([undefined, `${runId}:send:2:test.post#1`, `${runId}:send:2:test.post#2`]);
    // The segment ended: its journal, node checkpoint, start and lease are gone.
    for (const part of ['tool', 'progress', 'start', 'owner']) expect(await listKeys(kv, ['tea', part])).toEqual([]);
    expect(await stores.traceStore.getRun(runId)).toMatchObject({ status: 'completed' });
    kv.close();
  });
});

describe('deno runs: a node that takes its process down every time', () => {
  it('is continued 3 times from its checkpoint, then closed failed instead of taking down every process; hand-overs do not count', async () => {
    const registry = createActionRegistry();
    let visits = 0;
    registry.register({
      name: 'test.send_twice',
      description: 'never ends (its process is stopped under it each time)',
      async run(_params: unknown, context: ActionContext) {
        visits += 1;
        while (!context.signal.aborted) await sleep(5);
        throw new Error('stopped');
      },
    });
    const agent = loadAgent(AGENT, { file: 'journal.yaml', registry });
    const kv = await Deno.openKv(':memory:');
    const stores = createDenoKvStores(kv);
    const setup = { kv, agents: toAgentSource({ journal: agent }), ...stores, leaseMs: 60_000 };
    let current = new DenoRuns(setup);
    const runId = (await current.startHere(agent, {}, {})).runId;
    // Two processes stopped on purpose first (a rolling restart): not deaths.
    for (let stop = 1; stop <= 2; stop++) {
      for (let turn = 0; turn < 400 && visits < stop; turn++) await sleep(5);
      await current.handOver();
      current = new DenoRuns(setup);
      await current.sweep();
    }
    for (let death = 3; death <= 6; death++) {
      for (let turn = 0; turn < 400 && visits < death; turn++) await sleep(5);
      expect(visits).toBe(death);
      // A crash: the process stops writing and its lease is left expired (not handed over).
      await current.handOver();
      await kv.set(['tea', 'owner', runId], { process: 'crashed', until: 0 });
      current = new DenoRuns(setup);
      await current.sweep();
    }
    for (let turn = 0; turn < 400 && (await current.running(runId)); turn++) await sleep(5);
    expect(visits).toBe(6);
    const record = await stores.traceStore.getRun(runId);
    expect(record).toMatchObject({ status: 'failed', error: { code: 'INTERNAL' } });
    expect(record?.error?.message).toContain(`was continued 3 times at node 'send'`);
    const events = await current.log.eventsAfter(runId, 0);
    expect(events.filter((event) => event.type === 'node_start').map((event) => event.node)).toEqual([
      'prepare',
      'send',
      'send',
      'send',
      'send',
      'send',
      'send',
    ]);
    expect(events.at(-1)).toMatchObject({ type: 'done', data: { status: 'failed' } });
    kv.close();
  });
});

describe('deno runs: a process that died after the done event, before the final record', () => {
  it('the run taken over is recorded from its done event, not run again', async () => {
    const registry = createActionRegistry();
    let sends = 0;
    registry.register({ name: 'test.send_twice', description: 'counts its runs', run: () => ({ sends: ++sends }) });
    const agent = loadAgent(AGENT, { file: 'journal.yaml', registry });
    const kv = await Deno.openKv(':memory:');
    const stores = createDenoKvStores(kv);
    const setup = { kv, agents: toAgentSource({ journal: agent }), ...stores, leaseMs: 60_000 };
    const runId = (await (await new DenoRuns(setup).startHere(agent, {}, {})).finished).run_id;
    const events = await new DenoRuns(setup).log.eventsAfter(runId, 0);
    expect(events.at(-1)).toMatchObject({ type: 'done', data: { status: 'completed' } });
    // As if the process died right after storing `done`: the record still running, its start and lease left.
    const record = (await stores.traceStore.getRun(runId))!;
    await stores.traceStore.putRun({ ...record, status: 'running', updated_at: new Date(0).toISOString() });
    await kv.set(['tea', 'start', runId], { text: JSON.stringify({ agent: 'journal', input: {}, segment: 'start' }) });
    await kv.set(['tea', 'owner', runId], { process: 'crashed', until: 0 });

    const next = new DenoRuns(setup);
    await next.sweep();
    for (let turn = 0; turn < 400 && (await next.running(runId)); turn++) await sleep(5);
    expect(await stores.traceStore.getRun(runId)).toMatchObject({
      status: 'completed',
      stop_reason: 'completed',
      event_count: events.length,
    });
    expect(sends).toBe(1);
    expect(await next.log.eventsAfter(runId, 0)).toHaveLength(events.length);
    expect(await listKeys(kv, ['tea', 'start'])).toEqual([]);
    kv.close();
  });
});

console.log(JSON.stringify({ results: await run() }));
Deno.exit(0);
