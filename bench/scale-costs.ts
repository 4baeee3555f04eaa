/**
 * The storage and memory side of `tea-edge bench scale` (bench/scale.bench.ts):
 *
 * - bytes of node checkpoint each durable store writes per step of a 1,000-step `state.set` loop
 *   (a one-key update) whose state also holds an untouched 1 KB, 100 KB or 1 MB object, against
 *   the whole checkpoint (what every step wrote before checkpoints were patched): the Node file
 *   store (real files in a temporary folder; the bytes of each file it wrote), the Durable Object
 *   store (DurableRunStore over a SQL stand-in that counts the text bound into each INSERT and
 *   UPDATE) and Deno KV (DenoRunState over a KV stand-in that counts each value set);
 * - bytes of trace events stored per step of the same loop (the memory trace store's events);
 * - heap per paused run held by a host (memory stores) and per run in flight, at 1 KB and 100 KB.
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { createActionRegistry } from '../src/builtins.js';
import type { ActionContext } from '../src/core/action.js';
import type { DenoKvAtomic, DenoKvLike } from '../adapters/deno-kv/deno-kv-like.js';
import { createMemoryStores, loadAgent, runAgent } from '../src/index.js';
import type { CheckpointWrite } from '../src/graph/node-checkpoint.js';
import type { RunDurability } from '../src/graph/run-types.js';
import { safeName } from '../adapters/fs/safe-name.js';
import { DurableRunFiles } from '../worker/node/durable-fs.js';
import { DurableRunStore, type SqlStorageLike } from '../worker/durable-run-store.js';
import { DenoRunState } from '../worker/deno/deno-run-state.js';
import type { BenchResult } from './bench-result.js';
import { stateFiller } from './measure.js';

const STEPS = 1_000;
const SIZES: Array<[string, number]> = [
  ['1 KB', 1_000],
  ['100 KB', 100_000],
  ['1 MB', 1_000_000],
];

const LOOP = `name: scale-durable
settings:
  limits: { max_steps: 100000 }
nodes:
  - name: work
    uses: state.set
    with: { i: "{{ state.i + 1 }}" }
    goto:
      - if: "state.i >= state.n"
        to: __end__
      - to: work
`;

/** A durable store under test: its hooks, the bytes it wrote so far, and its clean-up. */
interface MeasuredStore {
  durability: RunDurability;
  bytes(): number;
  close(): Promise<void>;
}

const noResults = { recordedResult: () => undefined, recordResult: () => undefined };

/** The Node file store: the size of each file a checkpoint write leaves (resume-point.json or patches/<n>.json). */
async function fileStore(runId: string): Promise<MeasuredStore> {
  const directory = await mkdtemp(path.join(tmpdir(), 'tea-edge-scale-'));
  const files = new DurableRunFiles(directory, createMemoryStores().traceStore);
  const inner = files.durability(runId, undefined);
  const runDirectory = path.join(directory, 'durable', safeName(runId));
  let bytes = 0;
  return {
    durability: {
      ...inner,
      async saveProgress(write) {
        await inner.saveProgress(write);
        const file = write.kind === 'base' ? 'resume-point.json' : path.join('patches', `${write.index}.json`);
        bytes += (await stat(path.join(runDirectory, file))).size;
      },
    },
    bytes: () => bytes,
    close: async () => {
      files.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/** The Durable Object store over a stand-in for `ctx.storage.sql` that counts the text written. */
function objectStore(): MeasuredStore {
  let bytes = 0;
  const sql: SqlStorageLike = {
    exec(query, ...bindings) {
      const writes = /^\s*(INSERT|UPDATE)/i.test(query);
      if (writes) for (const value of bindings) bytes += typeof value === 'string' ? utf8Length(value) : 8;
      return { toArray: () => [], rowsWritten: writes ? 1 : 0 };
    },
  };
  const store = new DurableRunStore(sql);
  return { durability: { saveProgress: (write) => store.saveResumePoint(write, undefined, 0), ...noResults }, bytes: () => bytes, close: async () => undefined };
}

/** Deno KV's run state over a stand-in KV that counts every value set (keys listed: none). */
function denoStore(runId: string): MeasuredStore {
  let bytes = 0;
  const count = (value: unknown) => (bytes += utf8Length(typeof value === 'string' ? value : JSON.stringify(value)));
  const atomic = (): DenoKvAtomic => {
    const operation: DenoKvAtomic = {
      check: () => operation,
      set: (_key, value) => (count(value), operation),
      delete: () => operation,
      commit: async () => ({ ok: true, versionstamp: '1' }),
    };
    return operation;
  };
  const kv: DenoKvLike = {
    get: async (key) => ({ key, value: null, versionstamp: null }),
    set: async (_key, value) => (count(value), { ok: true }),
    delete: async () => undefined,
    list: () => Object.assign((async function* () {})(), { cursor: '' }),
    atomic,
  };
  const state = new DenoRunState(kv, ['bench'], 60_000, undefined);
  return { durability: { saveProgress: (write) => state.saveWrite(runId, write, 0), ...noResults }, bytes: () => bytes, close: async () => undefined };
}

function utf8Length(text: string): number {
  return new TextEncoder().encode(text).length;
}

/** Bytes of node checkpoint written per step by each store, and of trace events per step. */
export async function writtenPerStep(): Promise<BenchResult[]> {
  const results: BenchResult[] = [];
  const agent = loadAgent(LOOP);
  for (const [label, size] of SIZES) {
    const input = { big: stateFiller(size), i: 0, n: STEPS };
    let whole = 0;
    const stores: Array<[string, (runId: string) => MeasuredStore | Promise<MeasuredStore>]> = [
      ['Node files', fileStore],
      ['Durable Object SQLite', objectStore],
      ['Deno KV', denoStore],
    ];
    for (const [name, open] of stores) {
      const runId = `scale-${name.replace(/\W+/g, '-')}-${size}`;
      const store = await open(runId);
      try {
        const bases: number[] = [];
        const durability: RunDurability = {
          ...store.durability,
          saveProgress: (write: CheckpointWrite) => {
            if (write.kind === 'base') bases.push(JSON.stringify(write.checkpoint).length);
            return store.durability.saveProgress(write);
          },
        };
        const result = await runAgent(agent, input, { ...createMemoryStores(), runId, durability }).result;
        if (result.status !== 'completed') throw new Error(`scale: durable run ${result.status}: ${result.error?.message}`);
        whole = bases[0]!;
        const perStep = store.bytes() / STEPS;
        results.push({
          name: `scale.checkpoint: ${name}, bytes written per step, ${label} state, one-key update (${STEPS} steps, ${bases.length} whole checkpoints among them)`,
          value: Math.round(perStep),
          unit: 'B/step',
          baseline_value: whole,
          ratio: round(perStep / whole, 4),
        });
      } finally {
        await store.close();
      }
    }
    const traceStores = createMemoryStores();
    const traced = await runAgent(agent, input, { ...traceStores, runId: `trace-${size}` }).result;
    if (traced.status !== 'completed') throw new Error(`scale: traced run ${traced.status}`);
    const events = await traceStores.traceStore.readEvents(`trace-${size}`);
    const stepBytes = events.filter((event) => event.type !== 'run_start' && event.type !== 'done').reduce((sum, event) => sum + utf8Length(JSON.stringify(event)), 0);
    results.push({ name: `scale.trace: event bytes stored per step, ${label} state, one-key update (run_start and done left out)`, value: Math.round(stepBytes / STEPS), unit: 'B/step', baseline_value: whole, ratio: round(stepBytes / STEPS / whole, 4) });
  }
  return results;
}

const PAUSER = `name: scale-pause
nodes:
  - name: first
    uses: state.set
    with: { i: 1 }
  - name: second
    interrupt: before
    uses: state.set
    with: { i: 2 }
`;

const WAITER = `name: scale-wait
nodes:
  - name: wait
    uses: bench.wait
`;

/** `gc()`, exposed for this process. */
function collector(): () => void {
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
}

function heapAfterCollecting(gc: () => void): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

/** Heap per paused run (memory stores: its checkpoint and trace) and per run in flight, at 1 KB and 100 KB. */
export async function memoryPerRun(runs = 50): Promise<BenchResult[]> {
  const gc = collector();
  const results: BenchResult[] = [];
  const paused = loadAgent(PAUSER);
  let release: () => void = () => undefined;
  let gate = new Promise<void>((resolve) => (release = resolve));
  const registry = createActionRegistry();
  registry.register({ name: 'bench.wait', description: 'waits for the bench', run: async (_params: unknown, _context: ActionContext) => (await gate, { done: true }) });
  const waiting = loadAgent(WAITER, { registry });
  for (const [label, size] of SIZES.slice(0, 2)) {
    // The callers' inputs exist before the first heap reading: the figures are what the runs add.
    const inputs = () => Array.from({ length: runs }, () => ({ big: stateFiller(size) }));
    // Paused runs: each host-held store keeps the checkpoint and the events (run_start's input among them).
    let given = inputs();
    const held: unknown[] = [];
    const before = heapAfterCollecting(gc);
    for (const input of given) {
      const stores = createMemoryStores();
      const result = await runAgent(paused, input, stores).result;
      if (result.status !== 'interrupted') throw new Error(`scale: paused run ${result.status}`);
      held.push(stores);
    }
    const pausedBytes = (heapAfterCollecting(gc) - before) / runs;
    held.length = 0;
    results.push({ name: `scale.memory: heap per paused run held in memory stores, ${label} state (${runs} runs; its checkpoint and events)`, value: round(pausedBytes / 1024, 1), unit: 'KiB/run' });

    // Runs in flight: each waits in its node until all have started.
    gate = new Promise<void>((resolve) => (release = resolve));
    given = inputs();
    const start = heapAfterCollecting(gc);
    const flying = given.map((input) => runAgent(waiting, input, createMemoryStores()));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const flyingBytes = (heapAfterCollecting(gc) - start) / runs;
    release();
    for (const run of flying) if ((await run.result).status !== 'completed') throw new Error('scale: a run in flight did not complete');
    results.push({ name: `scale.memory: heap per run in flight (memory stores), ${label} state (${runs} concurrent runs)`, value: round(flyingBytes / 1024, 1), unit: 'KiB/run' });
  }
  return results;
}

function round(value: number, digits = 2): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}
