/**
 * The TraceStore over Workers KV. Writes follow KV's rules (see index.ts for the whole story):
 * events are buffered and written as new batch keys (never rewriting one), a `running` record is
 * held back and written with the next batch, a final record is written after the run's events are
 * durable, and no key is written more than once per second by this store.
 */
import type {
  AgentEvent,
  Insight,
  ListRunsOptions,
  RetentionPolicy,
  RunPage,
  RunRecord,
  TraceStore,
} from '../../src/host-storage.js';
import { orderEvents, parseEvents, splitEvents } from './event-pieces.js';
import { eventPieceKey, indexKeys, keyPart, parseEventPieceKey, runKeys, timeFromInverted } from './kv-keys.js';
import { kvFailure, type KvWriter } from './kv-writer.js';

/** The stored value of `run:<run>`: the record plus the batches written so far. */
interface StoredRun {
  record: RunRecord;
  /** `[first seq, piece count]` of each event batch known when the record was written. */
  batches: Array<[number, number]>;
}

/** What this store instance holds for one run between writes. */
interface RunBuffer {
  run: string;
  events: AgentEvent[];
  batches: Array<[number, number]>;
  pending?: RunRecord;
  /** Size of a batch whose write failed: it is retried with the same events. */
  retryCount?: number;
  /** A timer that writes a held-back `running` record once the run has lasted `flushIntervalMs`. */
  timer?: ReturnType<typeof setTimeout>;
  indexed: boolean;
  mergedStored: boolean;
  lastBatchAt: number;
  chain: Promise<unknown>;
}

export interface KvTraceStoreOptions {
  prefix: string;
  /** Largest value written, in bytes (KV allows 25 MiB; the default keeps a margin). */
  maxValueBytes: number;
  /** Buffered events older than this are written by the next append (default 1000 ms). */
  flushIntervalMs: number;
}

const FINAL = new Set(['completed', 'failed', 'interrupted', 'cancelled']);

export class KvTraceStore implements TraceStore {
  readonly #writer: KvWriter;
  readonly #options: KvTraceStoreOptions;
  readonly #runs = new Map<string, RunBuffer>();

  constructor(writer: KvWriter, options: KvTraceStoreOptions) {
    this.#writer = writer;
    this.#options = options;
  }

  async appendEvents(runId: string, events: AgentEvent[]): Promise<void> {
    const buffer = await this.#buffer(runId);
    buffer.events.push(...events);
    if (Date.now() - buffer.lastBatchAt >= this.#options.flushIntervalMs) await this.flush(runId);
  }

  async flush(runId: string): Promise<void> {
    const buffer = this.#runs.get(runId);
    if (buffer === undefined) return;
    await this.#serial(buffer, () => this.#writeBatchAndPending(buffer));
  }

  async readEvents(runId: string): Promise<AgentEvent[]> {
    const buffer = this.#runs.get(runId);
    const keys = runKeys(this.#options.prefix, buffer?.run ?? (await keyPart(runId)));
    const stored = await this.#writer.getJson<StoredRun>(keys.record);
    const batches = new Map<number, number>();
    for (const [firstSeq, pieces] of [...(stored?.batches ?? []), ...(buffer?.batches ?? [])])
      batches.set(firstSeq, pieces);
    for (const name of await this.#writer.listAll(keys.eventsPrefix)) {
      const parsed = parseEventPieceKey(name, keys.eventsPrefix);
      if (parsed !== undefined) batches.set(parsed.firstSeq, parsed.pieces);
    }
    const events: AgentEvent[] = [];
    const loaded = await Promise.all(
      [...batches].map(async ([firstSeq, pieces]) => {
        const names = Array.from({ length: pieces }, (_, piece) =>
          eventPieceKey(keys.eventsPrefix, firstSeq, piece, pieces),
        );
        const texts = await Promise.all(names.map((name) => this.#writer.get(name)));
        // A piece not visible yet (eventual consistency) or expired: the batch is left out whole.
        if (texts.some((text) => text === null)) return [];
        try {
          return parseEvents(texts.join(''));
        } catch (error) {
          throw kvFailure('parse', names[0]!, error);
        }
      }),
    );
    for (const batch of loaded) events.push(...batch);
    events.push(...(buffer?.events ?? []));
    return orderEvents(events);
  }

  async putRun(record: RunRecord): Promise<void> {
    const buffer = await this.#buffer(record.run_id);
    const copy: RunRecord = { ...record };
    if (!FINAL.has(record.status)) {
      buffer.pending = copy;
      this.#schedule(buffer);
      return;
    }
    // A final status is written only after the run's events are durable, so a reader never sees
    // "completed" for a run whose trace write failed.
    await this.#serial(buffer, async () => {
      delete buffer.pending;
      // The read of an earlier record overlaps the event write; the record waits for both.
      await Promise.all([this.#writeBatch(buffer), this.#mergeEarlier(buffer)]);
      await this.#writeRecord(buffer, copy);
      // A finished run's buffer is dropped, so a long-lived isolate does not grow with its runs.
      if (buffer.timer !== undefined) clearTimeout(buffer.timer);
      delete buffer.timer;
      if (buffer.events.length === 0 && buffer.pending === undefined && this.#runs.get(record.run_id) === buffer)
        this.#runs.delete(record.run_id);
    });
  }

  async getRun(runId: string): Promise<RunRecord | undefined> {
    const buffer = this.#runs.get(runId);
    if (buffer?.pending !== undefined) return { ...buffer.pending };
    const stored = await this.#writer.getJson<StoredRun>(
      runKeys(this.#options.prefix, buffer?.run ?? (await keyPart(runId))).record,
    );
    return stored?.record;
  }

  async listRuns(options: ListRunsOptions = {}): Promise<RunPage> {
    await this.#writePendingRecords();
    const prefix = this.#options.prefix;
    const listPrefix = options.agent === undefined ? `${prefix}ix:` : `${prefix}ia:${await keyPart(options.agent)}:`;
    const limit = Math.max(1, Math.min(1000, options.limit ?? 50));
    const page = await this.#writer.listPage(listPrefix, limit, options.cursor);
    const records = await Promise.all(
      page.keys.map(async (key) => {
        const run = key.name.slice(key.name.lastIndexOf(':') + 1);
        return (await this.#writer.getJson<StoredRun>(runKeys(prefix, run).record))?.record;
      }),
    );
    const result: RunPage = { runs: records.filter((record): record is RunRecord => record !== undefined) };
    if (!page.list_complete && page.cursor !== undefined) result.cursor = page.cursor;
    return result;
  }

  async deleteRun(runId: string): Promise<void> {
    const run = await keyPart(runId);
    this.#forget(runId);
    await this.#deleteRunKey(run);
  }

  async applyRetention(policy: RetentionPolicy): Promise<number> {
    await this.#writePendingRecords();
    const names = await this.#writer.listAll(`${this.#options.prefix}ix:`);
    const doomed = new Set<string>();
    const now = Date.now();
    for (const [position, name] of names.entries()) {
      const parts = name.slice(`${this.#options.prefix}ix:`.length).split(':');
      const inverted = parts[0]!;
      const run = parts[parts.length - 1]!;
      if (policy.maxRuns !== undefined && position >= policy.maxRuns) doomed.add(run);
      else if (policy.maxAgeMs !== undefined && timeFromInverted(inverted) < now - policy.maxAgeMs) {
        // created_at is old; updated_at decides (a long-paused run may have been resumed lately).
        const stored = await this.#writer.getJson<StoredRun>(runKeys(this.#options.prefix, run).record);
        const updated = Date.parse(stored?.record.updated_at ?? '');
        if (!Number.isFinite(updated) || updated < now - policy.maxAgeMs) doomed.add(run);
      }
    }
    for (const run of doomed) await this.#deleteRunKey(run);
    for (const [runId, buffer] of this.#runs) if (doomed.has(buffer.run)) this.#forget(runId);
    return doomed.size;
  }

  async getInsights(agent: string): Promise<Insight[]> {
    return (await this.#writer.getJson<Insight[]>(`${this.#options.prefix}in:${await keyPart(agent)}`)) ?? [];
  }

  async putInsights(agent: string, insights: Insight[]): Promise<void> {
    await this.#writer.put(`${this.#options.prefix}in:${await keyPart(agent)}`, JSON.stringify(insights));
  }

  /** Drops what this store holds for a run, its pending timer included. */
  #forget(runId: string): void {
    const buffer = this.#runs.get(runId);
    if (buffer?.timer !== undefined) clearTimeout(buffer.timer);
    this.#runs.delete(runId);
  }

  async #buffer(runId: string): Promise<RunBuffer> {
    let buffer = this.#runs.get(runId);
    if (buffer === undefined) {
      const run = await keyPart(runId);
      buffer = this.#runs.get(runId);
      if (buffer !== undefined) return buffer;
      buffer = {
        run,
        events: [],
        batches: [],
        indexed: false,
        mergedStored: false,
        lastBatchAt: Date.now(),
        chain: Promise.resolve(),
      };
      this.#runs.set(runId, buffer);
    }
    return buffer;
  }

  /** Runs writes of one run one after another; a failure rejects that caller only. */
  #serial<T>(buffer: RunBuffer, work: () => Promise<T>): Promise<T> {
    const result = buffer.chain.then(work, work);
    buffer.chain = result.catch(() => undefined);
    return result;
  }

  /**
   * A long run (a slow model call) becomes visible as `running` after `flushIntervalMs` even when
   * it emits nothing: a timer writes the held-back record then. If that write fails nothing is
   * lost: events stay buffered and the record stays held back until the next flush or final put,
   * which retry them and report a failure to the engine.
   */
  #schedule(buffer: RunBuffer): void {
    if (buffer.timer !== undefined) return;
    buffer.timer = setTimeout(() => {
      delete buffer.timer;
      if (buffer.pending === undefined) return;
      this.#serial(buffer, () => this.#writeBatchAndPending(buffer)).catch(() => undefined);
    }, this.#options.flushIntervalMs);
  }

  async #writeBatchAndPending(buffer: RunBuffer): Promise<void> {
    await this.#writeBatch(buffer);
    const pending = buffer.pending;
    if (pending !== undefined) {
      await this.#writeRecord(buffer, pending);
      if (buffer.pending === pending) delete buffer.pending;
    }
  }

  /**
   * Writes the buffered events as new batches. A batch that failed stays buffered and is retried
   * with exactly the same events (so its keys, which name its piece count, are the same keys);
   * events appended since then form the next batch.
   */
  async #writeBatch(buffer: RunBuffer): Promise<void> {
    while (buffer.events.length > 0) {
      const events = buffer.events.slice(0, buffer.retryCount ?? buffer.events.length);
      const firstSeq = events[0]!.seq;
      const pieces = splitEvents(events, this.#options.maxValueBytes);
      const eventsPrefix = runKeys(this.#options.prefix, buffer.run).eventsPrefix;
      buffer.retryCount = events.length;
      await Promise.all(
        pieces.map((text, piece) =>
          this.#writer.put(eventPieceKey(eventsPrefix, firstSeq, piece, pieces.length), text),
        ),
      );
      delete buffer.retryCount;
      buffer.events.splice(0, events.length);
      buffer.batches.push([firstSeq, pieces.length]);
      buffer.lastBatchAt = Date.now();
    }
  }

  /** A run resumed in another isolate: keeps the batches the earlier isolate recorded (read once). */
  async #mergeEarlier(buffer: RunBuffer): Promise<void> {
    if (buffer.mergedStored) return;
    const earlier = await this.#writer.getJson<StoredRun>(runKeys(this.#options.prefix, buffer.run).record);
    for (const batch of earlier?.batches ?? [])
      if (!buffer.batches.some(([seq]) => seq === batch[0])) buffer.batches.unshift(batch);
    buffer.mergedStored = true;
  }

  async #writeRecord(buffer: RunBuffer, record: RunRecord): Promise<void> {
    const keys = runKeys(this.#options.prefix, buffer.run);
    await this.#mergeEarlier(buffer);
    const stored: StoredRun = { record, batches: buffer.batches };
    const writes = [this.#writer.put(keys.record, JSON.stringify(stored))];
    if (!buffer.indexed) {
      // The index keys go with the record, in parallel: they hold no status, only where to look.
      const agent = await keyPart(record.agent);
      const index = indexKeys(this.#options.prefix, agent, buffer.run, record.created_at);
      writes.push(this.#writer.put(index.all, '', { metadata: { a: agent } }), this.#writer.put(index.agent, ''));
    }
    await Promise.all(writes);
    buffer.indexed = true;
  }

  async #writePendingRecords(): Promise<void> {
    await Promise.all(
      [...this.#runs.values()]
        .filter((buffer) => buffer.pending !== undefined)
        .map((buffer) => this.#serial(buffer, () => this.#writeBatchAndPending(buffer))),
    );
  }

  async #deleteRunKey(run: string): Promise<void> {
    const prefix = this.#options.prefix;
    const keys = runKeys(prefix, run);
    const stored = await this.#writer.getJson<StoredRun>(keys.record);
    const doomed = [
      ...(await this.#writer.listAll(keys.eventsPrefix)),
      ...(await this.#writer.listAll(keys.claimPrefix)),
      keys.checkpoint,
    ];
    if (stored !== undefined) {
      const index = indexKeys(prefix, await keyPart(stored.record.agent), run, stored.record.created_at);
      doomed.push(index.all, index.agent);
    } else {
      for (const name of await this.#writer.listAll(`${prefix}ix:`)) if (name.endsWith(`:${run}`)) doomed.push(name);
    }
    await Promise.all(doomed.map((name) => this.#writer.delete(name)));
    await this.#writer.delete(keys.record);
  }
}
