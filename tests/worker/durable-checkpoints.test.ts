/**
 * The engine's side of durable runs (RunDurability, continueFromNode), with the real engine and a
 * host-registered side-effecting tool: a node checkpoint is saved before every node of the main
 * flow; a run continued from the checkpoint of the node that was running re-runs that node with the
 * same idempotency key, hands back the tool results recorded before the "death" instead of calling
 * the tool again, and ends with the state of an undisturbed run. A failing checkpoint write fails
 * the run with STORAGE_ERROR.
 */
import { describe, expect, it } from 'vitest';
import type { ActionContext } from '../../src/core/action.js';
import { createActionRegistry } from '../../src/builtins.js';
import type { AgentEvent } from '../../src/core/events.js';
import { runAgent } from '../../src/graph/run-agent.js';
import { continueFromNode } from '../../src/graph/resume-run.js';
import { decodeCheckpoint } from '../../src/graph/checkpoint-codec.js';
import type { CheckpointWrite } from '../../src/graph/node-checkpoint.js';
import type { AgentRun, NodeCheckpoint, RunDurability } from '../../src/graph/run-types.js';
import { loadAgent } from '../../src/load-agent-with-scripts.js';
import { JOURNAL_AGENT as AGENT } from '../support/journal-agent.js';

/** A host whose `test.post` counts its real calls, and whose `send` node can be made to hang (the host "dies" there). */
function host() {
  const posts: Array<{ key: string | undefined; n: unknown }> = [];
  const nodeKeys: Array<string | undefined> = [];
  let hang = true;
  const registry = createActionRegistry();
  registry.register({
    name: 'test.post',
    description: 'a side effect outside the run',
    sideEffects: true,
    run(params: { n: number }, context: ActionContext) {
      posts.push({ key: context.idempotencyKey, n: params.n });
      return { receipt: `r${posts.length}` };
    },
  });
  registry.register({
    name: 'test.send_twice',
    description: 'posts twice, then waits (while the test wants it to)',
    async run(_params: unknown, context: ActionContext) {
      nodeKeys.push(context.idempotencyKey);
      const first = (await context.callAction('test.post', { n: 1 })) as { receipt: string };
      const second = (await context.callAction('test.post', { n: 2 })) as { receipt: string };
      if (hang)
        await new Promise((_, reject) =>
          context.signal.addEventListener('abort', () => reject(new Error('host died'))),
        );
      return { receipts: [first.receipt, second.receipt] };
    },
  });
  const agent = loadAgent(AGENT, { file: 'journal.yaml', registry });
  return { agent, posts, nodeKeys, release: () => (hang = false) };
}

/**
 * An in-memory durable store (what the run coordinator keeps in SQLite): a base and its patches;
 * `checkpoints` holds the node checkpoint they read back as after each write.
 */
function memoryDurability(failSave = false) {
  const checkpoints: NodeCheckpoint[] = [];
  const results = new Map<string, unknown>();
  let base: CheckpointWrite | undefined;
  let patches: CheckpointWrite[] = [];
  const writes: CheckpointWrite[] = [];
  const durability: RunDurability = {
    saveProgress(write) {
      if (failSave) throw new Error('disk full');
      writes.push(structuredClone(write));
      if (write.kind === 'base') [base, patches] = [structuredClone(write), []];
      else patches.push(structuredClone(write));
      checkpoints.push(decodeCheckpoint(base, patches, 'the test store'));
    },
    recordedResult: (key) => (results.has(key) ? { value: results.get(key) } : undefined),
    recordResult: (key, value) => void results.set(key, value),
  };
  return { durability, checkpoints, results, writes };
}

async function drain(run: AgentRun): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of run) events.push(event);
  return events;
}

describe('node checkpoints and recorded tool results', () => {
  it('a run continued at the node that was running re-runs it with the same key and does not call a recorded tool again', async () => {
    const undisturbed = host();
    undisturbed.release();
    const reference = runAgent(undisturbed.agent, {}, { runId: 'run-ref', durability: memoryDurability().durability });
    await drain(reference);

    const { agent, posts, nodeKeys, release } = host();
    const { durability, checkpoints, results } = memoryDurability();
    const dying = runAgent(agent, {}, { runId: 'run-1', durability });
    const dyingEvents = drain(dying);
    // Both posts made and recorded, then the host "dies" in the middle of `send`.
    for (let turn = 0; turn < 100 && posts.length < 2; turn++) await new Promise((resolve) => setTimeout(resolve, 5));
    dying.cancel('host died');
    const before = await dyingEvents;
    expect(checkpoints.map((checkpoint) => checkpoint.node)).toEqual(['prepare', 'send']);
    expect(posts.map((post) => post.key)).toEqual(['run-1:send:2:test.post#1', 'run-1:send:2:test.post#2']);
    expect([...results.keys()]).toEqual(['run-1:send:2:test.post#1', 'run-1:send:2:test.post#2']);

    const last = checkpoints.at(-1)!;
    expect(last).toMatchObject({
      run_id: 'run-1',
      agent: 'journal',
      node: 'send',
      state: { n: 1 },
      usage: { steps: 1 },
    });
    release();
    const continued = continueFromNode(agent, last, before.at(-1)!.seq, { durability });
    const after = await drain(continued);
    const result = await continued.result;

    expect(result.status).toBe('completed');
    expect(result.state).toEqual((await reference.result).state);
    expect(result.state).toMatchObject({ receipts: ['r1', 'r2'], finished: true });
    // The tool was not called again; the node ran twice with one key.
    expect(posts).toHaveLength(2);
    expect(nodeKeys).toEqual(['run-1:send:2', 'run-1:send:2']);
    const durable = after.filter(
      (event) => event.type === 'log' && (event.data as { source: string }).source === 'durable',
    );
    expect(durable.map((event) => (event.data as { idempotency_key?: string }).idempotency_key)).toEqual([
      undefined,
      'run-1:send:2:test.post#1',
      'run-1:send:2:test.post#2',
    ]);
    // Numbered on after the dead segment's last event.
    expect(after[0]!.seq).toBe(before.at(-1)!.seq + 1);
  });

  it('a node run again after its host died gets the model responses it already had, in order, without asking the model again', async () => {
    let asked = 0;
    let hang = true;
    const provider = {
      generate: async () => ({
        content: `answer ${++asked}`,
        usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
        model: 'm',
        finish_reason: 'stop',
      }),
      // biome-ignore lint/correctness/useYield: a stream that fails before its first chunk
      stream: async function* () {
        throw new Error('not streamed here');
      },
    };
    const registry = createActionRegistry();
    registry.register({
      name: 'test.ask_twice',
      description: 'asks the model twice, then waits (while the test wants it to)',
      async run(_params: unknown, context: ActionContext) {
        const first = await context.callLlm({ prompt: 'one' });
        const second = await context.callLlm({ prompt: 'two' });
        if (hang)
          await new Promise((_, reject) =>
            context.signal.addEventListener('abort', () => reject(new Error('host died'))),
          );
        return { answers: [first.content, second.content] };
      },
    });
    const agent = loadAgent(AGENT.replace('uses: test.send_twice', 'uses: test.ask_twice'), {
      file: 'journal.yaml',
      registry,
    });
    const llm = { providerFactory: () => provider as never };
    const { durability, checkpoints, results } = memoryDurability();
    const dying = runAgent(agent, {}, { runId: 'run-m', durability, llm });
    const dyingEvents = drain(dying);
    for (let turn = 0; turn < 100 && asked < 2; turn++) await new Promise((resolve) => setTimeout(resolve, 5));
    await new Promise((resolve) => setTimeout(resolve, 5));
    dying.cancel('host died');
    const before = await dyingEvents;
    expect(asked).toBe(2);
    expect([...results.keys()]).toEqual(['run-m:send:2:model#1', 'run-m:send:2:model#2']);

    hang = false;
    const continued = continueFromNode(agent, checkpoints.at(-1)!, before.at(-1)!.seq, { durability, llm });
    const after = await drain(continued);
    const result = await continued.result;
    expect(result).toMatchObject({ status: 'completed', state: { answers: ['answer 1', 'answer 2'], finished: true } });
    // Not asked again, and still counted: the run's usage has both calls.
    expect(asked).toBe(2);
    const durable = after.filter(
      (event) => event.type === 'log' && (event.data as { source: string }).source === 'durable',
    );
    expect(durable.slice(1).map((event) => (event.data as { message: string }).message)).toEqual([
      "model call not made again: its response was recorded before the run's host restarted",
      "model call not made again: its response was recorded before the run's host restarted",
    ]);
    const done = after.find((event) => event.type === 'done')!;
    expect(done.data).toMatchObject({ status: 'completed' });
  });

  it('each visit of a node in a loop gets its own key; on_error retries of one visit share it', async () => {
    const registry = createActionRegistry();
    const keys: Array<string | undefined> = [];
    let calls = 0;
    registry.register({
      name: 'test.flaky',
      description: 'fails its first call',
      run(_params: unknown, context: ActionContext) {
        keys.push(context.idempotencyKey);
        if (++calls === 1) throw new Error('first call fails');
        return { visits: calls };
      },
    });
    const agent = loadAgent(
      `
name: looper
nodes:
  - name: work
    uses: test.flaky
    on_error: { mode: retry, max_retries: 1, backoff_ms: 1 }
    goto:
      - if: "{{ state.visits < 3 }}"
        to: work
      - to: __end__
`,
      { file: 'looper.yaml', registry },
    );
    const run = runAgent(agent, {}, { runId: 'loop-1' });
    await drain(run);
    expect((await run.result).status).toBe('completed');
    expect(keys).toEqual(['loop-1:work:1', 'loop-1:work:1', 'loop-1:work:2']);
  });

  it('each dynamic_parallel item has its own key, the same in every run of the node', async () => {
    const registry = createActionRegistry();
    const keys: Array<string | undefined> = [];
    registry.register({
      name: 'test.key',
      description: 'notes its key',
      run(_params: unknown, context: ActionContext) {
        keys.push(context.idempotencyKey);
        return { ok: true };
      },
    });
    const agent = loadAgent(
      `
name: fanout
nodes:
  - name: fan
    type: dynamic_parallel
    items: ["a", "b", "c"]
    max_concurrency: 3
    fan_in: done
    action:
      uses: test.key
  - name: done
    run: |
      return { done = true }
`,
      { file: 'fanout.yaml', registry },
    );
    const run = runAgent(agent, {}, { runId: 'fan-1', durability: memoryDurability().durability });
    await drain(run);
    expect((await run.result).status).toBe('completed');
    expect([...keys].sort()).toEqual(['fan-1:fan#item0:1', 'fan-1:fan#item1:1', 'fan-1:fan#item2:1']);
  });

  it('a checkpoint that cannot be saved fails the run with STORAGE_ERROR before the node runs', async () => {
    const { agent, posts, release } = host();
    release();
    const run = runAgent(agent, {}, { durability: memoryDurability(true).durability });
    await drain(run);
    const result = await run.result;
    expect(result).toMatchObject({ status: 'failed', error: { code: 'STORAGE_ERROR' } });
    expect(result.error!.message).toContain('disk full');
    expect(posts).toHaveLength(0);
  });

  it('after the first checkpoint only the keys a node changed are written, and the checkpoints read back are the run state before each node', async () => {
    const agent = loadAgent(`name: loop
nodes:
  - name: count
    uses: state.set
    with: { i: "{{ state.i + 1 }}" }
  - name: note
    run: { type: expression, value: "'at ' ~ state.i", output_key: note }
    goto:
      - if: "state.i >= 6"
        to: __end__
      - to: count
`);
    const big = { text: 'x'.repeat(50_000) };
    const { durability, checkpoints, writes } = memoryDurability();
    const run = runAgent(agent, { big, i: 0 }, { runId: 'run-big', durability });
    await drain(run);
    const result = await run.result;
    expect(result.status).toBe('completed');
    expect(writes[0]!.kind).toBe('base');
    const patches = writes.slice(1);
    expect(patches.length).toBe(11);
    // Before `note` the change is the `i` that `count` set, before `count` the `note`.
    expect(patches.map((patch) => (patch.kind === 'patch' ? Object.keys(patch.state.set).join() : 'base'))).toEqual(
      Array.from({ length: 11 }, (_, index) => (index % 2 === 0 ? 'i' : 'note')),
    );
    for (const patch of patches) expect(JSON.stringify(patch).length).toBeLessThan(1_000);
    // Before each node the checkpoint holds the state as the node found it: before the last one, i = 6 and the note of i = 5.
    expect(checkpoints.at(-1)!.state).toEqual({ big, i: 6, note: 'at 5' });
    expect(checkpoints.map((checkpoint) => checkpoint.node)).toEqual(
      Array.from({ length: 12 }, (_, index) => (index % 2 === 0 ? 'count' : 'note')),
    );
    expect(result.state).toEqual({ big, i: 6, note: 'at 6' });
  });
});
