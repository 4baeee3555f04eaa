/**
 * The event log of Deno runs (worker/deno/deno-runs.ts) in Deno KV: each event is written as the run
 * emits it (not in the engine's batches), so a follower in any process sharing the database reads
 * it at once; the engine's own appends of the same seqs are left out (an event is written once, by
 * seq). Writes are group commits: while one commit is in flight, the next events gather and go in
 * the next one (at most 400 keys / 500 kB per commit, inside Deno KV's limits).
 *
 * Followers in this process are woken by each commit; followers of a run executing in another
 * process poll the log's last seq and the run's lease every `pollMs` (Deno KV's `watch` does not
 * see another process's writes to a local database file: measured with deno 2.9.6, the watcher
 * got the first value and nothing after in 4 s of writes from a second process).
 */
import type { AgentEvent } from '../../src/core/events.js';
import type { DenoKvAtomic, DenoKvKey, DenoKvLike } from '../../adapters/deno-kv/deno-kv-like.js';
import { commit, splitText } from '../../adapters/deno-kv/deno-kv-texts.js';
import { eventsPrefix, lastEventSeq, readEventsAfter } from '../../adapters/deno-kv/deno-kv-events.js';
import { waitForWake } from '../durable-run-store.js';
import type { EventLog } from '../run-follow.js';

const COMMIT_KEYS = 400;
const COMMIT_BYTES = 500_000;

export interface RunLogOptions {
  prefix: DenoKvKey;
  maxValueBytes: number;
  expireIn: number | undefined;
  /** Milliseconds between a follower's looks at a run executing in another process. */
  pollMs: number;
}

export class DenoRunLog {
  private readonly waiters = new Map<string, Set<() => void>>();

  constructor(
    readonly kv: DenoKvLike,
    readonly options: RunLogOptions,
  ) {}

  /** A writer for one segment of a run (its events from `lastSeq` + 1 on). */
  writer(runId: string, lastSeq: number): EventWriter {
    return new EventWriter(this, runId, lastSeq);
  }

  eventsAfter(runId: string, after: number): Promise<AgentEvent[]> {
    return readEventsAfter(this.kv, this.options.prefix, runId, after);
  }

  lastSeq(runId: string): Promise<number> {
    return lastEventSeq(this.kv, this.options.prefix, runId);
  }

  /** Wakes this process's followers of a run (an event was written, or the run stopped). */
  wake(runId: string): void {
    const waiting = this.waiters.get(runId);
    if (waiting === undefined) return;
    this.waiters.delete(runId);
    for (const waiter of waiting) waiter();
  }

  /**
   * What a follower reads: the events after its cursor and, before them, whether the run is still
   * held by a process (`running`, read first: a run releases its lease only after its last event
   * is written, so once a read sees no lease the events read next are all there are).
   */
  follower(runId: string, running: () => Promise<boolean>): { log: EventLog; live: () => boolean } {
    let live = true;
    let cursor = 0;
    const log: EventLog = {
      eventsAfter: async (after) => {
        live = await running();
        const events = await this.eventsAfter(runId, after);
        cursor = events.at(-1)?.seq ?? after;
        return events;
      },
      changed: (ms) =>
        this.changed(runId, ms, async () => (await this.lastSeq(runId)) > cursor || (await running()) !== live),
    };
    return { log, live: () => live };
  }

  /** True at a local wake or when `moved()` says so (looked at every pollMs); false after `ms`. */
  private changed(runId: string, ms: number, moved: () => Promise<boolean>): Promise<boolean> {
    const waiting = this.waiters.get(runId) ?? new Set();
    this.waiters.set(runId, waiting);
    const woken = waitForWake(waiting, ms);
    let settled = false;
    void woken.then(() => (settled = true));
    const poll = async (): Promise<boolean> => {
      const deadline = Date.now() + ms;
      while (!settled && Date.now() < deadline) {
        await new Promise((resolve) =>
          setTimeout(resolve, Math.min(this.options.pollMs, Math.max(1, deadline - Date.now()))),
        );
        if (!settled && (await moved().catch(() => true))) return true;
      }
      return woken;
    };
    return Promise.race([woken, poll()]).finally(() => {
      if (waiting.size === 0 && this.waiters.get(runId) === waiting) this.waiters.delete(runId);
    });
  }
}

/** Writes one run segment's events as they come, each seq once, in group commits. */
export class EventWriter {
  private highest: number;
  private pending: AgentEvent[] = [];
  private flushing: Promise<void> | undefined;
  private failure: unknown;
  /** Set when this process no longer owns the run: nothing more is written. */
  fenced = false;

  constructor(
    private readonly log: DenoRunLog,
    private readonly runId: string,
    lastSeq: number,
  ) {
    this.highest = lastSeq;
  }

  /** Queues the events not queued yet (by seq); resolves once they are committed. */
  write(events: readonly AgentEvent[]): Promise<void> {
    for (const event of events) {
      if (event.seq <= this.highest) continue;
      this.highest = event.seq;
      this.pending.push(event);
    }
    return this.drain();
  }

  /** Resolves once every queued event is committed; rejects with the first write failure. */
  drain(): Promise<void> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    this.flushing ??= this.commitPending().finally(() => (this.flushing = undefined));
    return this.flushing;
  }

  private async commitPending(): Promise<void> {
    while (this.pending.length > 0 && !this.fenced) {
      const batch = this.pending.splice(0, this.pending.length);
      try {
        await this.commitEvents(batch);
      } catch (error) {
        this.failure = error;
        throw error;
      }
      this.log.wake(this.runId);
    }
  }

  private async commitEvents(events: readonly AgentEvent[]): Promise<void> {
    const { kv, options } = this.log;
    const prefix = eventsPrefix(options.prefix, this.runId);
    const setOptions = options.expireIn === undefined ? undefined : { expireIn: options.expireIn };
    let atomic: DenoKvAtomic = kv.atomic();
    let keys = 0;
    let bytes = 0;
    for (const event of events) {
      const pieces = splitText(JSON.stringify(event), options.maxValueBytes);
      for (const [index, piece] of pieces.entries()) {
        if (keys > 0 && (keys >= COMMIT_KEYS || bytes + piece.length * 3 > COMMIT_BYTES)) {
          await commit(atomic);
          atomic = kv.atomic();
          keys = 0;
          bytes = 0;
        }
        atomic.set([...prefix, event.seq, index], piece, setOptions);
        keys += 1;
        bytes += piece.length * 3;
      }
    }
    if (keys > 0) await commit(atomic);
  }
}
