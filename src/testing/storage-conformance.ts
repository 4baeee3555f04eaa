/**
 * The storage conformance suite (docs/spec.md#7-storage-traces-and-checkpoints): every TraceStore/CheckpointStore adapter runs it, the
 * in-memory reference store included. Each test gets a fresh pair of stores from `makeStore`.
 *
 * @example
 * describeTraceStoreConformance('memory', async () => createMemoryStores());
 * describeTraceStoreConformance('fs', async () => { const dir = await mkdtemp(...); return { ...createFsStores(dir), cleanup: () => rm(dir, { recursive: true }) }; });
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentEvent, EventType } from '../core/events.js';
import type { Checkpoint, CheckpointStore, RunRecord, TraceStore } from '../core/trace-store.js';

export interface StorePair {
  traceStore: TraceStore;
  checkpointStore: CheckpointStore;
  /** Called after each test (close handles, remove temp directories). */
  cleanup?: () => Promise<void> | void;
}

/** Groups of tests a back-end may legitimately not support; each skip should be explained by the adapter. */
export type ConformanceFeature = 'concurrentClaim' | 'retention' | 'largeEvents' | 'insights';

export interface ConformanceOptions {
  /** Test groups to skip, with the adapter's reason in its module comment. */
  skip?: ConformanceFeature[];
  /**
   * When the store caps events itself: events bigger than this many bytes (JSON, UTF-8) may come
   * back truncated with a `[truncated` marker instead of whole.
   */
  maxEventBytes?: number;
  /** Number of runs in the paging test (default 25, listed 10 per page). */
  pagingRuns?: number;
}

/** Odd run ids and agent names every store must accept. */
export const ODD_NAMES = [
  'a/b/../c',
  '../escape',
  'with space and\ttab',
  'ünïcødé-名前-🚀',
  'x'.repeat(300),
  '.',
  'CON',
  'Case',
  'case',
  'percent%2Fslash',
  '~tilde_underscore-',
];

/** Builds an event of a run. */
export function makeEvent(
  runId: string,
  seq: number,
  type: EventType = 'log',
  data: Record<string, unknown> = {},
): AgentEvent {
  return {
    type,
    run_id: runId,
    seq,
    ts: new Date(Date.UTC(2026, 0, 1, 0, 0, 0, seq)).toISOString(),
    data: { index: seq, ...data },
  } as AgentEvent;
}

/** An event's data as a plain record (the stores keep any data; these tests read their own fields). */
function dataOf(event: AgentEvent): Record<string, unknown> {
  return event.data;
}

/** Builds a run record created at minute `minute` of a fixed day. */
export function makeRun(runId: string, agent: string, minute: number, extra: Partial<RunRecord> = {}): RunRecord {
  const created = new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString();
  return {
    run_id: runId,
    agent,
    status: 'completed',
    stop_reason: 'completed',
    created_at: created,
    updated_at: created,
    ...extra,
  };
}

/** Builds a checkpoint of a run. */
export function makeCheckpoint(runId: string, checkpointId: string, minute = 0): Checkpoint {
  return {
    checkpoint_id: checkpointId,
    run_id: runId,
    agent: 'agent',
    node: 'review',
    position: 'before',
    state: { draft: 'text', nested: { list: [1, 2, 3], flag: true, nothing: null } },
    pending: { kind: 'interrupt', node: 'review', position: 'before' },
    seq: 7,
    usage: { steps: 3, llm_calls: 1, tokens: 42 },
    memory: { notes: ['a'] },
    resume_data: { react: { step: 2 } },
    created_at: new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString(),
  };
}

/** True when every object in the value is a plain object or array (inert JSON). */
function isInert(value: unknown): boolean {
  if (value === null || typeof value !== 'object')
    return typeof value !== 'function' && typeof value !== 'bigint' && typeof value !== 'symbol';
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== Array.prototype && prototype !== null) return false;
  return Object.values(value).every(isInert);
}

function jsonBytes(value: unknown): number {
  return new TextEncoder().encode(JSON.stringify(value)).length;
}

/** Registers the conformance suite for one adapter. */
export function describeTraceStoreConformance(
  name: string,
  makeStore: () => Promise<StorePair>,
  options: ConformanceOptions = {},
): void {
  const skip = new Set(options.skip ?? []);
  const pagingRuns = options.pagingRuns ?? 25;
  let current: StorePair | undefined;

  async function open(): Promise<StorePair> {
    current = await makeStore();
    return current;
  }

  afterEach(async () => {
    const pair = current;
    current = undefined;
    await pair?.cleanup?.();
  });

  describe(`${name}: trace store`, () => {
    it('appends in several batches and reads back in seq order, runs kept apart', async () => {
      const { traceStore } = await open();
      const events = Array.from({ length: 30 }, (_, index) => makeEvent('run-1', index + 1));
      for (let start = 0; start < 30; start += 10) {
        await traceStore.appendEvents('run-1', events.slice(start, start + 10));
        await traceStore.appendEvents('run-2', [makeEvent('run-2', start / 10 + 1)]);
      }
      await traceStore.appendEvents('run-1', []);
      await traceStore.flush('run-1');
      await traceStore.flush('run-2');
      expect(await traceStore.readEvents('run-1')).toEqual(events);
      expect((await traceStore.readEvents('run-2')).map((event) => event.seq)).toEqual([1, 2, 3]);
    });

    it('reads back events appended without an explicit flush of another run', async () => {
      const { traceStore } = await open();
      await traceStore.appendEvents('run-a', [makeEvent('run-a', 1), makeEvent('run-a', 2)]);
      await traceStore.flush('run-a');
      await traceStore.appendEvents('run-a', [makeEvent('run-a', 3)]);
      await traceStore.flush('run-a');
      expect((await traceStore.readEvents('run-a')).map((event) => event.seq)).toEqual([1, 2, 3]);
    });

    it('returns no events for an unknown run and flushes an unknown run without error', async () => {
      const { traceStore } = await open();
      await traceStore.flush('nobody');
      expect(await traceStore.readEvents('nobody')).toEqual([]);
    });

    it('round-trips run records and replaces them on put', async () => {
      const { traceStore } = await open();
      expect(await traceStore.getRun('run-1')).toBeUndefined();
      const running = makeRun('run-1', 'agent', 1, { status: 'running', stop_reason: undefined });
      delete running.stop_reason;
      await traceStore.putRun(running);
      expect(await traceStore.getRun('run-1')).toMatchObject(running);
      const failed = makeRun('run-1', 'agent', 1, {
        status: 'failed',
        stop_reason: 'error',
        updated_at: new Date(Date.UTC(2026, 0, 1, 1)).toISOString(),
        error: { code: 'LUA_ERROR', message: 'node "x": boom', node: 'x', details: { line: 2 } },
      });
      await traceStore.putRun(failed);
      expect(await traceStore.getRun('run-1')).toMatchObject(failed);
      expect((await traceStore.listRuns()).runs).toHaveLength(1);
    });

    it('lists runs newest first (created_at, then run_id) and pages with a cursor without duplicates or gaps', async () => {
      const { traceStore } = await open();
      const records: RunRecord[] = [];
      for (let index = 0; index < pagingRuns; index++) {
        // Every third pair shares created_at, so the run_id tie-break is exercised.
        const minute = index - (index % 3 === 1 ? 1 : 0);
        records.push(makeRun(`run-${String(index).padStart(3, '0')}`, index % 2 === 0 ? 'alpha' : 'beta', minute));
      }
      for (const record of [...records].reverse()) await traceStore.putRun(record);
      const expected = [...records]
        .sort((left, right) =>
          left.created_at === right.created_at
            ? left.run_id < right.run_id
              ? 1
              : -1
            : left.created_at < right.created_at
              ? 1
              : -1,
        )
        .map((record) => record.run_id);

      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await traceStore.listRuns({ limit: 10, ...(cursor !== undefined ? { cursor } : {}) });
        expect(page.runs.length).toBeLessThanOrEqual(10);
        seen.push(...page.runs.map((run) => run.run_id));
        cursor = page.cursor;
        pages++;
      } while (cursor !== undefined && pages < 100);
      expect(seen).toEqual(expected);
      expect(pages).toBe(Math.ceil(pagingRuns / 10));

      const alpha: string[] = [];
      cursor = undefined;
      pages = 0;
      do {
        const page = await traceStore.listRuns({
          agent: 'alpha',
          limit: 4,
          ...(cursor !== undefined ? { cursor } : {}),
        });
        expect(page.runs.every((run) => run.agent === 'alpha')).toBe(true);
        alpha.push(...page.runs.map((run) => run.run_id));
        cursor = page.cursor;
        pages++;
      } while (cursor !== undefined && pages < 100);
      expect(alpha).toEqual(
        expected.filter((runId) => records.find((record) => record.run_id === runId)?.agent === 'alpha'),
      );
      expect((await traceStore.listRuns({ agent: 'nobody' })).runs).toEqual([]);
    });

    it('deletes a run record with its events; deleting an unknown run is not an error', async () => {
      const { traceStore } = await open();
      await traceStore.putRun(makeRun('keep', 'agent', 1));
      await traceStore.putRun(makeRun('gone', 'agent', 2));
      await traceStore.appendEvents('keep', [makeEvent('keep', 1)]);
      await traceStore.appendEvents('gone', [makeEvent('gone', 1), makeEvent('gone', 2)]);
      await traceStore.flush('keep');
      await traceStore.flush('gone');
      await traceStore.deleteRun('gone');
      await traceStore.deleteRun('never-existed');
      expect(await traceStore.getRun('gone')).toBeUndefined();
      expect(await traceStore.readEvents('gone')).toEqual([]);
      expect((await traceStore.listRuns()).runs.map((run) => run.run_id)).toEqual(['keep']);
      expect(await traceStore.readEvents('keep')).toHaveLength(1);
    });

    it.skipIf(skip.has('retention'))('applies retention by run count and returns how many it deleted', async () => {
      const { traceStore } = await open();
      expect(await traceStore.applyRetention({ maxRuns: 3 })).toBe(0);
      for (let index = 0; index < 6; index++) {
        await traceStore.putRun(makeRun(`run-${index}`, 'agent', index));
        await traceStore.appendEvents(`run-${index}`, [makeEvent(`run-${index}`, 1)]);
        await traceStore.flush(`run-${index}`);
      }
      expect(await traceStore.applyRetention({ maxRuns: 4 })).toBe(2);
      expect((await traceStore.listRuns()).runs.map((run) => run.run_id)).toEqual(['run-5', 'run-4', 'run-3', 'run-2']);
      expect(await traceStore.readEvents('run-0')).toEqual([]);
      expect(await traceStore.readEvents('run-2')).toHaveLength(1);
      expect(await traceStore.applyRetention({ maxRuns: 4 })).toBe(0);
    });

    it.skipIf(skip.has('retention'))(
      'applies retention by age (updated_at) and returns how many it deleted',
      async () => {
        const { traceStore } = await open();
        const now = Date.now();
        const old = new Date(now - 10 * 86_400_000).toISOString();
        const recent = new Date(now - 60_000).toISOString();
        await traceStore.putRun(makeRun('old-1', 'agent', 1, { created_at: old, updated_at: old }));
        await traceStore.putRun(makeRun('old-2', 'agent', 2, { created_at: old, updated_at: old }));
        // Created long ago but updated recently: kept.
        await traceStore.putRun(makeRun('touched', 'agent', 3, { created_at: old, updated_at: recent }));
        await traceStore.putRun(makeRun('new', 'agent', 4, { created_at: recent, updated_at: recent }));
        expect(await traceStore.applyRetention({ maxAgeMs: 86_400_000 })).toBe(2);
        const left = (await traceStore.listRuns()).runs.map((run) => run.run_id).sort();
        expect(left).toEqual(['new', 'touched']);
        expect(await traceStore.applyRetention({})).toBe(0);
      },
    );

    it.skipIf(skip.has('insights'))('keeps insights per agent and replaces them on put', async () => {
      const { traceStore } = await open();
      expect(await traceStore.getInsights('agent')).toEqual([]);
      const insights = [
        { lesson: 'cite sources', score: 0.8 },
        { lesson: 'be brief', tags: ['style'] },
      ];
      await traceStore.putInsights('agent', insights);
      await traceStore.putInsights('other', [{ lesson: 'other' }]);
      expect(await traceStore.getInsights('agent')).toEqual(insights);
      await traceStore.putInsights('agent', [{ lesson: 'replaced' }]);
      expect(await traceStore.getInsights('agent')).toEqual([{ lesson: 'replaced' }]);
      expect(await traceStore.getInsights('other')).toEqual([{ lesson: 'other' }]);
    });

    it('stores inert JSON: no class instances come back, and copies are independent', async () => {
      const { traceStore } = await open();
      const data = { when: new Date(0), nested: { list: [1, 'a', { deep: true }] }, skipped: undefined };
      const event = makeEvent('run-1', 1, 'node_end', data);
      await traceStore.appendEvents('run-1', [event]);
      await traceStore.flush('run-1');
      (dataOf(event).nested as { list: unknown[] }).list.push('mutated-input');
      const [stored] = await traceStore.readEvents('run-1');
      expect(isInert(stored)).toBe(true);
      expect(stored).toEqual(
        JSON.parse(
          JSON.stringify(makeEvent('run-1', 1, 'node_end', { ...data, nested: { list: [1, 'a', { deep: true }] } })),
        ),
      );
      (dataOf(stored!).nested as { list: unknown[] }).list.push('mutated-output');
      const [again] = await traceStore.readEvents('run-1');
      expect((dataOf(again!).nested as { list: unknown[] }).list).toEqual([1, 'a', { deep: true }]);

      const record = makeRun('run-1', 'agent', 1);
      await traceStore.putRun(record);
      record.agent = 'changed';
      const read = await traceStore.getRun('run-1');
      expect(read?.agent).toBe('agent');
      read!.status = 'failed';
      expect((await traceStore.getRun('run-1'))?.status).toBe('completed');
    });

    it.skipIf(skip.has('largeEvents'))(
      'round-trips a 200 KB event, or truncates it with a marker within the cap',
      async () => {
        const { traceStore } = await open();
        const big = 'é'.repeat(100_000);
        const events = [
          makeEvent('run-1', 1),
          makeEvent('run-1', 2, 'llm_response', { content: big }),
          makeEvent('run-1', 3),
        ];
        await traceStore.appendEvents('run-1', events);
        await traceStore.flush('run-1');
        const stored = await traceStore.readEvents('run-1');
        expect(stored.map((event) => event.seq)).toEqual([1, 2, 3]);
        const content = dataOf(stored[1]!).content;
        if (options.maxEventBytes === undefined) {
          expect(content).toBe(big);
        } else {
          expect(typeof content).toBe('string');
          expect(content as string).toContain('[truncated');
          expect(jsonBytes(stored[1])).toBeLessThanOrEqual(options.maxEventBytes);
        }
      },
    );

    it('accepts run ids and agent names with odd characters', async () => {
      const { traceStore, checkpointStore } = await open();
      for (const [index, oddName] of ODD_NAMES.entries()) {
        await traceStore.putRun(makeRun(oddName, oddName, index));
        await traceStore.appendEvents(oddName, [makeEvent(oddName, 1), makeEvent(oddName, 2)]);
        await traceStore.flush(oddName);
      }
      for (const oddName of ODD_NAMES) {
        expect((await traceStore.getRun(oddName))?.run_id).toBe(oddName);
        expect((await traceStore.readEvents(oddName)).map((event) => [event.run_id, event.seq])).toEqual([
          [oddName, 1],
          [oddName, 2],
        ]);
        expect((await traceStore.listRuns({ agent: oddName })).runs.map((run) => run.run_id)).toEqual([oddName]);
      }
      expect((await traceStore.listRuns()).runs).toHaveLength(ODD_NAMES.length);
      if (!skip.has('insights')) {
        for (const oddName of ODD_NAMES) await traceStore.putInsights(oddName, [{ agent: oddName }]);
        for (const oddName of ODD_NAMES) expect(await traceStore.getInsights(oddName)).toEqual([{ agent: oddName }]);
      }
      for (const oddName of ODD_NAMES) await checkpointStore.save(makeCheckpoint(oddName, `cp ${oddName}`));
      for (const oddName of ODD_NAMES) {
        expect((await checkpointStore.loadLatest(oddName))?.checkpoint_id).toBe(`cp ${oddName}`);
        expect(await checkpointStore.claim(oddName, `cp ${oddName}`)).toBe(true);
      }
      await traceStore.deleteRun(ODD_NAMES[0]!);
      expect(await traceStore.getRun(ODD_NAMES[0]!)).toBeUndefined();
      expect((await traceStore.getRun(ODD_NAMES[1]!))?.run_id).toBe(ODD_NAMES[1]);
    });
  });

  describe(`${name}: checkpoint store`, () => {
    it('saves and loads the newest checkpoint of a run; unknown runs have none', async () => {
      const { checkpointStore } = await open();
      expect(await checkpointStore.loadLatest('run-1')).toBeUndefined();
      await checkpointStore.save(makeCheckpoint('run-1', 'cp-1', 1));
      expect(await checkpointStore.loadLatest('run-1')).toEqual(makeCheckpoint('run-1', 'cp-1', 1));
      await checkpointStore.save(makeCheckpoint('run-1', 'cp-2', 2));
      await checkpointStore.save(makeCheckpoint('run-2', 'cp-x', 3));
      expect((await checkpointStore.loadLatest('run-1'))?.checkpoint_id).toBe('cp-2');
      expect((await checkpointStore.loadLatest('run-2'))?.checkpoint_id).toBe('cp-x');
    });

    it('deletes the checkpoints of a run; deleting an unknown run is not an error', async () => {
      const { checkpointStore } = await open();
      await checkpointStore.save(makeCheckpoint('run-1', 'cp-1'));
      await checkpointStore.save(makeCheckpoint('run-2', 'cp-2'));
      await checkpointStore.delete('run-1');
      await checkpointStore.delete('never-existed');
      expect(await checkpointStore.loadLatest('run-1')).toBeUndefined();
      expect((await checkpointStore.loadLatest('run-2'))?.checkpoint_id).toBe('cp-2');
    });

    it('claims a checkpoint exactly once', async () => {
      const { checkpointStore } = await open();
      await checkpointStore.save(makeCheckpoint('run-1', 'cp-1'));
      expect(await checkpointStore.claim('run-1', 'cp-1')).toBe(true);
      expect(await checkpointStore.claim('run-1', 'cp-1')).toBe(false);
      await checkpointStore.save(makeCheckpoint('run-1', 'cp-2', 1));
      expect(await checkpointStore.claim('run-1', 'cp-2')).toBe(true);
      expect(await checkpointStore.claim('run-1', 'cp-2')).toBe(false);
    });

    it.skipIf(skip.has('concurrentClaim'))('gives a racing claim to exactly one caller', async () => {
      const { checkpointStore } = await open();
      await checkpointStore.save(makeCheckpoint('run-1', 'cp-1'));
      const results = await Promise.all([1, 2, 3, 4].map(() => checkpointStore.claim('run-1', 'cp-1')));
      expect(results.filter(Boolean)).toHaveLength(1);
    });

    it('stores checkpoints as inert, independent JSON', async () => {
      const { checkpointStore } = await open();
      const checkpoint = makeCheckpoint('run-1', 'cp-1');
      await checkpointStore.save(checkpoint);
      (checkpoint.state.nested as { list: number[] }).list.push(99);
      const loaded = await checkpointStore.loadLatest('run-1');
      expect(isInert(loaded)).toBe(true);
      expect(loaded).toEqual(makeCheckpoint('run-1', 'cp-1'));
      (loaded!.state.nested as { list: number[] }).list.push(100);
      expect(await checkpointStore.loadLatest('run-1')).toEqual(makeCheckpoint('run-1', 'cp-1'));
    });
  });
}
