/**
 * The storage of one run inside its Durable Object (worker/cloudflare/run-coordinator.ts): a TraceStore and a
 * CheckpointStore over the object's own SQLite database (`ctx.storage.sql`), which is strongly
 * consistent and private to the object. Tables:
 *
 *   events(seq PRIMARY KEY, type, body)   every event of every segment of the run, by seq
 *   record(id = 1, body)                  the run record (GET /runs/:id reads it here)
 *   checkpoint(id = 1, checkpoint_id, body)   the pause checkpoint (interrupts, confirmations)
 *   claims(checkpoint_id PRIMARY KEY)     one row per claimed checkpoint: the resume claim
 *   resume_point(id = 1, body, role, restarts)   the node checkpoint of the executing segment:
 *                                         where the run continues if the object dies (written
 *                                         before every node, gone when the segment ends); its
 *                                         base (src/graph/checkpoint-codec.ts), and
 *   resume_patches(idx PRIMARY KEY, body, restarts)   the patches after it, each the change
 *                                         before one more node (a base drops them)
 *   tool_results(key PRIMARY KEY, body)   recorded results of side-effecting tool calls, by
 *                                         idempotency key: a node re-run after a restart gets
 *                                         them back instead of calling the tool again
 *
 * An event is written once, whoever writes it first: the coordinator writes each event as the run
 * emits it (so followers see it at once) and the engine's batched appends of the same seqs are
 * ignored (`INSERT OR IGNORE`). A claim is one `INSERT OR IGNORE`: SQLite statements in an object
 * run one at a time, so exactly one claimer of a checkpoint sees its row written.
 *
 * Listing (`listRuns`), insights and retention are not per run: they go to the `index` store
 * (Workers KV), which also receives every record this store writes. A failing index never fails the
 * run: the object holds the truth, KV only lists it (worker/README.md "Which store holds what").
 */
import type { AgentEvent } from '../src/core/events.js';
import { AgentError } from '../src/core/agent-error.js';
import type { CheckpointWrite } from '../src/graph/node-checkpoint.js';
import { fromStoredJson } from '../src/storage/json-copy.js';
import { readStoredPoint, type ResumePoint, type StoredWrite } from './durable-continue.js';
import type {
  Checkpoint,
  CheckpointStore,
  Insight,
  ListRunsOptions,
  RetentionPolicy,
  RunPage,
  RunRecord,
  TraceStore,
} from '../src/core/trace-store.js';

/** Storage writes of one object: SQLite rows written, the text bound into its writes (UTF-16 units), and puts to the KV index (counted by the host's KV binding wrapper). */
export interface StorageWrites {
  rows: number;
  kv_puts: number;
  bytes?: number;
}

/** The part of a Durable Object's `ctx.storage.sql` this store uses. */
export interface SqlStorageLike {
  exec(query: string, ...bindings: unknown[]): SqlCursorLike;
}

export interface SqlCursorLike {
  toArray(): Array<Record<string, unknown>>;
  readonly rowsWritten: number;
}

/** Objects created before patches get the table when they are next opened. */
const PATCHES_TABLE =
  'CREATE TABLE IF NOT EXISTS resume_patches (idx INTEGER PRIMARY KEY, body TEXT NOT NULL, restarts INTEGER NOT NULL DEFAULT 0)';

const SCHEMA = [
  'CREATE TABLE IF NOT EXISTS events (seq INTEGER PRIMARY KEY, type TEXT NOT NULL, body TEXT NOT NULL)',
  'CREATE TABLE IF NOT EXISTS record (id INTEGER PRIMARY KEY CHECK (id = 1), body TEXT NOT NULL)',
  'CREATE TABLE IF NOT EXISTS checkpoint (id INTEGER PRIMARY KEY CHECK (id = 1), checkpoint_id TEXT NOT NULL, body TEXT NOT NULL)',
  'CREATE TABLE IF NOT EXISTS claims (checkpoint_id TEXT PRIMARY KEY)',
  'CREATE TABLE IF NOT EXISTS resume_point (id INTEGER PRIMARY KEY CHECK (id = 1), body TEXT NOT NULL, role TEXT, restarts INTEGER NOT NULL DEFAULT 0)',
  'CREATE TABLE IF NOT EXISTS tool_results (key TEXT PRIMARY KEY, body TEXT NOT NULL)',
  PATCHES_TABLE,
];

const TABLES = ['events', 'record', 'checkpoint', 'claims', 'resume_point', 'resume_patches', 'tool_results'];

export class DurableRunStore implements TraceStore, CheckpointStore {
  private readonly waiters = new Set<() => void>();

  constructor(
    private readonly sql: SqlStorageLike,
    private readonly index?: TraceStore,
    /** Storage writes since the object was built (GET /stats, for the benchmarks). */
    readonly writes: StorageWrites = { rows: 0, kv_puts: 0 },
  ) {
    // Tables are created by the first write: looking up an unknown run id stores nothing.
    this.created =
      this.exec("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'events'").toArray().length > 0;
    if (this.created) this.exec(PATCHES_TABLE);
  }

  private created: boolean;

  /** Runs a statement only once the tables exist (before, there is nothing to read or delete). */
  private ifCreated(query: string, ...bindings: unknown[]): SqlCursorLike {
    return this.created ? this.exec(query, ...bindings) : { toArray: () => [], rowsWritten: 0 };
  }

  private write(query: string, ...bindings: unknown[]): SqlCursorLike {
    if (!this.created) {
      for (const statement of SCHEMA) this.exec(statement);
      this.created = true;
    }
    const cursor = this.exec(query, ...bindings);
    // Drained first: a cursor counts the rows it wrote as it runs.
    cursor.toArray();
    this.writes.rows += cursor.rowsWritten;
    this.writes.bytes =
      (this.writes.bytes ?? 0) +
      bindings.reduce<number>((sum, value) => sum + (typeof value === 'string' ? value.length : 8), 0);
    return cursor;
  }

  private exec(query: string, ...bindings: unknown[]): SqlCursorLike {
    try {
      return this.sql.exec(query, ...bindings);
    } catch (error) {
      throw new AgentError('STORAGE_ERROR', `run coordinator storage: ${(error as Error).message ?? String(error)}`);
    }
  }

  /** Writes events not written yet (by seq) and wakes every follower. */
  append(events: readonly AgentEvent[]): void {
    for (const event of events) {
      this.write(
        'INSERT OR IGNORE INTO events (seq, type, body) VALUES (?, ?, ?)',
        event.seq,
        event.type,
        JSON.stringify(event),
      );
    }
    this.wake();
  }

  /** Wakes followers without a new event (the run ended). */
  wake(): void {
    for (const waiter of [...this.waiters]) waiter();
    this.waiters.clear();
  }

  /** Resolves true at the next write (or `wake`), false after `ms`. */
  changed(ms: number): Promise<boolean> {
    return waitForWake(this.waiters, ms);
  }

  /** Events with seq > `after`, in order, at most `limit`. */
  eventsAfter(after: number, limit = 500): AgentEvent[] {
    return this.ifCreated('SELECT body FROM events WHERE seq > ? ORDER BY seq LIMIT ?', after, limit)
      .toArray()
      .map((row) => JSON.parse(row.body as string) as AgentEvent);
  }

  lastSeq(): number {
    const row = this.ifCreated('SELECT MAX(seq) AS seq FROM events').toArray()[0];
    return typeof row?.seq === 'number' ? row.seq : 0;
  }

  /** The type of the newest event (a run whose last event is `done` is not executing). */
  lastEventType(): string | undefined {
    const row = this.ifCreated('SELECT type FROM events ORDER BY seq DESC LIMIT 1').toArray()[0];
    return row === undefined ? undefined : (row.type as string);
  }

  // The executing segment (RunDurability, through the coordinator)

  /**
   * Saves the node checkpoint before a node, with its restart count (durable-continue.ts
   * `restartsFor`): a base replaces the row and drops the patches, a patch is one more row.
   */
  saveResumePoint(write: CheckpointWrite, role: string | undefined, restarts: number): void {
    if (write.kind === 'patch') {
      this.write(
        'INSERT OR REPLACE INTO resume_patches (idx, body, restarts) VALUES (?, ?, ?)',
        write.index,
        JSON.stringify(write),
        restarts,
      );
      return;
    }
    this.write(
      'INSERT OR REPLACE INTO resume_point (id, body, role, restarts) VALUES (1, ?, ?, ?)',
      JSON.stringify(write),
      role ?? null,
      restarts,
    );
    this.write('DELETE FROM resume_patches');
  }

  /** The node checkpoint (its base and patches replayed); the restart count is the newest write's. */
  resumePoint(): ResumePoint | undefined {
    const row = this.ifCreated('SELECT body, role, restarts FROM resume_point WHERE id = 1').toArray()[0];
    if (row === undefined) return undefined;
    const where = "the run coordinator's node checkpoint";
    const patches = this.ifCreated('SELECT body, restarts FROM resume_patches ORDER BY idx').toArray();
    const stored = (body: unknown, restarts: unknown, field: 'base' | 'patch'): StoredWrite => ({
      [field]: fromStoredJson(body as string, where),
      restarts: Number(restarts),
    });
    const point = readStoredPoint(
      stored(row.body, row.restarts, 'base'),
      patches.map((patch) => stored(patch.body, patch.restarts, 'patch')),
      where,
    );
    return { ...point, role: typeof row.role === 'string' ? row.role : undefined };
  }

  /** Counts one continuation from the current checkpoint (on its newest write); returns the new count. */
  countRestart(): number {
    if (
      this.write('UPDATE resume_patches SET restarts = restarts + 1 WHERE idx = (SELECT MAX(idx) FROM resume_patches)')
        .rowsWritten === 0
    ) {
      this.write('UPDATE resume_point SET restarts = restarts + 1 WHERE id = 1');
    }
    return this.resumePoint()?.restarts ?? 0;
  }

  /** The segment ended (whatever its outcome): nothing to continue, no tool result to hand back. */
  endSegment(): void {
    this.ifCreated('DELETE FROM resume_point');
    this.ifCreated('DELETE FROM resume_patches');
    this.ifCreated('DELETE FROM tool_results');
  }

  recordedResult(key: string): { value: unknown } | undefined {
    const row = this.ifCreated('SELECT body FROM tool_results WHERE key = ?', key).toArray()[0];
    return row === undefined ? undefined : { value: JSON.parse(row.body as string) };
  }

  recordResult(key: string, value: unknown): void {
    this.write('INSERT OR REPLACE INTO tool_results (key, body) VALUES (?, ?)', key, JSON.stringify(value));
  }

  // TraceStore

  async appendEvents(_runId: string, events: AgentEvent[]): Promise<void> {
    this.append(events);
  }

  async flush(runId: string): Promise<void> {
    // SQLite writes are durable once the object's output gate opens; only the index buffers.
    await this.index?.flush(runId).catch(() => undefined);
  }

  async readEvents(_runId: string): Promise<AgentEvent[]> {
    return this.allAfter(0);
  }

  /** Every event with seq > `after`, read page by page. */
  allAfter(after: number): AgentEvent[] {
    const events: AgentEvent[] = [];
    for (let page = this.eventsAfter(after); page.length > 0; page = this.eventsAfter(page[page.length - 1]!.seq))
      events.push(...page);
    return events;
  }

  async putRun(record: RunRecord): Promise<void> {
    this.write('INSERT OR REPLACE INTO record (id, body) VALUES (1, ?)', JSON.stringify(record));
    // The listing index is best effort: a KV failure leaves the run listed late, never failed.
    await this.index?.putRun(record).catch(() => undefined);
  }

  async getRun(_runId: string): Promise<RunRecord | undefined> {
    return this.record();
  }

  record(): RunRecord | undefined {
    const row = this.ifCreated('SELECT body FROM record WHERE id = 1').toArray()[0];
    return row === undefined ? undefined : (JSON.parse(row.body as string) as RunRecord);
  }

  async listRuns(options?: ListRunsOptions): Promise<RunPage> {
    return this.index?.listRuns(options) ?? { runs: [] };
  }

  async deleteRun(runId: string): Promise<void> {
    for (const table of TABLES) this.ifCreated(`DELETE FROM ${table}`);
    // Objects written before node checkpoints kept a `progress` table (the seq of each node_end).
    this.ifCreated('DROP TABLE IF EXISTS progress');
    await this.index?.deleteRun(runId);
  }

  async applyRetention(policy: RetentionPolicy): Promise<number> {
    return this.index?.applyRetention(policy) ?? 0;
  }

  async getInsights(agent: string): Promise<Insight[]> {
    return this.index?.getInsights(agent) ?? [];
  }

  async putInsights(agent: string, insights: Insight[]): Promise<void> {
    await this.index?.putInsights(agent, insights);
  }

  // CheckpointStore

  async save(checkpoint: Checkpoint): Promise<void> {
    this.write(
      'INSERT OR REPLACE INTO checkpoint (id, checkpoint_id, body) VALUES (1, ?, ?)',
      checkpoint.checkpoint_id,
      JSON.stringify(checkpoint),
    );
  }

  async loadLatest(_runId: string): Promise<Checkpoint | undefined> {
    const row = this.ifCreated('SELECT body FROM checkpoint WHERE id = 1').toArray()[0];
    return row === undefined ? undefined : (JSON.parse(row.body as string) as Checkpoint);
  }

  async delete(_runId: string): Promise<void> {
    this.ifCreated('DELETE FROM checkpoint');
  }

  async claim(_runId: string, checkpointId: string): Promise<boolean> {
    return this.write('INSERT OR IGNORE INTO claims (checkpoint_id) VALUES (?)', checkpointId).rowsWritten > 0;
  }
}

/** Waits for one of `waiters` to be called (true), or `ms` (false). */
export function waitForWake(waiters: Set<() => void>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      waiters.delete(done);
      resolve(false);
    }, ms);
    const done = () => {
      clearTimeout(timer);
      resolve(true);
    };
    waiters.add(done);
  });
}
