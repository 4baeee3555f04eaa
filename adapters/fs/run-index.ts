/**
 * The run index of a trace directory: what lets `listRuns` answer one page without reading every
 * `record.json`. `<dir>/run-index.ndjson` holds one line per run (`{run_id, agent, created_at}`),
 * appended when a store first writes the run's record; each store keeps the index in memory and
 * reads only what other processes appended since its last read (the file's tail).
 *
 * The index is derived, never the truth: the records are. A listing compares the index with the
 * names in `runs/` (one directory read; skipped while `runs/` is unchanged for two seconds, when
 * only the directories that had no readable record are looked at again): a run directory the index lacks (its line lost in a
 * crash, a directory from before the index, a line another process's compaction dropped) is read
 * once and indexed; an indexed run whose directory is gone is dropped. So a lost or torn index
 * line, or a write of the index refused by the disk, never hides a run or fails a record's write;
 * it only costs that run's record being read once more. A page reads the records of its own runs
 * and no others (a run deleted or unreadable meanwhile is left out, as before).
 *
 * The file is rewritten without the runs that are gone once they are most of it (compaction).
 */
import { open, stat } from 'node:fs/promises';
import path from 'node:path';
import {
  compareRunsNewestFirst,
  decodeCursor,
  encodeCursor,
  pageSize,
  type ListRunsOptions,
  type RetentionPolicy,
  type RunPage,
  type RunPosition,
  type RunRecord,
} from '../../src/host-storage.js';
import { appendText, listDirectory, traceFileFailure, writeAtomic } from './fs-files.js';
import { safeName } from './safe-name.js';

export const RUN_INDEX_FILE = 'run-index.ndjson';

/** One indexed run: its listing position, its agent, its directory name. */
interface IndexEntry extends RunPosition {
  agent: string;
  name: string;
}

/** Records read at once while filling a page. */
const READ_BATCH = 64;
/**
 * A `runs/` directory changed less than this long ago is read again even when its modification
 * time is the one last seen: a change within the file system's time granularity keeps the time.
 */
const SETTLED_MS = 2000;

export class RunIndex {
  private readonly file: string;
  private readonly byId = new Map<string, IndexEntry>();
  /** Bytes of the file read so far (up to its last whole line). */
  private offset = 0;
  /** Lines in the file: more than twice the runs indexed means most are of runs that are gone. */
  private lines = 0;
  private sorted: IndexEntry[] | undefined;
  private syncing: Promise<void> | undefined;
  /** Run directories without a readable record when `runs/` was last read (a record may come). */
  private readonly unindexed = new Set<string>();
  /** The modification time of `runs/` when it was last read whole and settled (see SETTLED_MS). */
  private readAt: number | undefined;

  constructor(
    directory: string,
    private readonly runsDirectory: string,
    private readonly readRecord: (name: string) => Promise<RunRecord | undefined>,
  ) {
    this.file = path.join(directory, RUN_INDEX_FILE);
  }

  /**
   * Notes a record this store wrote: a run new to the index (or whose position or agent changed)
   * gets a line. A refused write of the index is not the record's failure (see the module note).
   */
  async note(record: RunRecord): Promise<void> {
    await this.noteAll([record]);
  }

  private async noteAll(records: RunRecord[]): Promise<void> {
    const changed = records.filter((record) => {
      const known = this.byId.get(record.run_id);
      return known === undefined || known.created_at !== record.created_at || known.agent !== record.agent;
    });
    if (changed.length === 0) return;
    for (const record of changed) this.set(record);
    await appendText(this.file, changed.map(lineOf).join('')).then(
      () => void (this.lines += changed.length),
      () => undefined,
    );
  }

  /** Forgets a run this store deleted. */
  forget(runId: string): void {
    if (this.byId.delete(runId)) this.sorted = undefined;
  }

  /** One page of runs, newest first, reading only the records of the page. */
  async page(options: ListRunsOptions = {}): Promise<RunPage> {
    const limit = pageSize(options);
    const after = options.cursor !== undefined ? decodeCursor(options.cursor) : undefined;
    await this.sync();
    const runs: RunRecord[] = [];
    let last: IndexEntry | undefined;
    let more = false;
    const candidates = this.ordered().filter(
      (entry) =>
        (options.agent === undefined || entry.agent === options.agent) &&
        (after === undefined || compareRunsNewestFirst(entry, after) > 0),
    );
    let next = 0;
    while (next < candidates.length && !more) {
      // As many as the page still needs, and the one that says more follow.
      const batch = candidates.slice(next, next + Math.min(READ_BATCH, limit + 1 - runs.length));
      next += batch.length;
      const records = await Promise.all(batch.map((entry) => this.readRecord(entry.name).catch(() => undefined)));
      for (const [index, record] of records.entries()) {
        if (record === undefined || record.run_id !== batch[index]!.run_id) continue;
        if (options.agent !== undefined && record.agent !== options.agent) continue;
        if (runs.length === limit) {
          more = true;
          break;
        }
        runs.push(record);
        last = batch[index];
      }
    }
    return more && last !== undefined ? { runs, cursor: encodeCursor(last) } : { runs };
  }

  /**
   * The runs a retention policy removes (the rules of `runsToRetire`), reading only the records
   * that may be removed: those past the newest `maxRuns` in the index's order, and those created
   * before the age limit (a run's last update is not before its creation). A run recorded
   * `running`, or whose record cannot be read, is kept.
   */
  async retired(policy: RetentionPolicy, now: number): Promise<string[]> {
    await this.sync();
    const keep = policy.maxRuns === undefined ? Infinity : Math.max(0, Math.floor(policy.maxRuns));
    const oldestKept = policy.maxAgeMs === undefined ? undefined : now - policy.maxAgeMs;
    const tooOld = (time: string) => oldestKept !== undefined && !(Date.parse(time) >= oldestKept);
    const candidates = this.ordered().flatMap((entry, rank) =>
      rank >= keep || tooOld(entry.created_at) ? [{ entry, pastCount: rank >= keep }] : [],
    );
    const retired: string[] = [];
    for (let start = 0; start < candidates.length; start += READ_BATCH) {
      const batch = candidates.slice(start, start + READ_BATCH);
      const records = await Promise.all(batch.map(({ entry }) => this.readRecord(entry.name).catch(() => undefined)));
      for (const [index, record] of records.entries()) {
        if (record === undefined || record.status === 'running') continue;
        const updated = Date.parse(record.updated_at);
        if (batch[index]!.pastCount || (oldestKept !== undefined && updated < oldestKept)) retired.push(record.run_id);
      }
    }
    return retired;
  }

  /** Reads the file's tail and reconciles, one sync at a time (a listing asked meanwhile waits for the next). */
  private sync(): Promise<void> {
    const next = (this.syncing ?? Promise.resolve())
      .catch(() => undefined)
      .then(async () => {
        await this.readTail();
        await this.reconcile();
      });
    this.syncing = next;
    return next;
  }

  private set(record: Pick<RunRecord, 'run_id' | 'agent' | 'created_at'>): void {
    this.byId.set(record.run_id, {
      run_id: record.run_id,
      created_at: record.created_at,
      agent: record.agent,
      name: safeName(record.run_id),
    });
    this.sorted = undefined;
  }

  private ordered(): IndexEntry[] {
    this.sorted ??= [...this.byId.values()].sort(compareRunsNewestFirst);
    return this.sorted;
  }

  /** Reads the lines appended since the last read (all of them when the file was rewritten). */
  private async readTail(): Promise<void> {
    let handle;
    try {
      handle = await open(this.file, 'r');
    } catch (error) {
      if ((error as { code?: unknown }).code === 'ENOENT') return;
      throw traceFileFailure('read', this.file, error);
    }
    try {
      const { size } = await handle.stat();
      if (size < this.offset) {
        // Rewritten by a compaction (here or in another process): read from the start again.
        this.offset = 0;
        this.lines = 0;
      }
      if (size === this.offset) return;
      const buffer = Buffer.alloc(size - this.offset);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, this.offset);
      // Only whole lines: a line being appended (or torn by a crash) is read once it is whole.
      const end = buffer.subarray(0, bytesRead).lastIndexOf(0x0a) + 1;
      for (const line of buffer.subarray(0, end).toString('utf8').split('\n')) {
        if (line === '') continue;
        this.lines++;
        const entry = entryOf(line);
        if (entry !== undefined) this.set(entry);
      }
      this.offset += end;
    } catch (error) {
      throw traceFileFailure('read', this.file, error);
    } finally {
      await handle.close();
    }
  }

  /** Brings the index in line with the run directories (module note), then compacts it when most of it is gone. */
  private async reconcile(): Promise<void> {
    // Unchanged since it was last read (no run directory added or removed): only the directories
    // that had no readable record then are looked at again (a record written into one since).
    const changedAt = await modifiedAt(this.runsDirectory);
    if (changedAt !== undefined && changedAt === this.readAt) {
      await this.index([...this.unindexed]);
      return;
    }
    const names = new Set(await listDirectory(this.runsDirectory));
    const indexed = new Set<string>();
    for (const entry of [...this.byId.values()]) {
      if (names.has(entry.name)) indexed.add(entry.name);
      else this.forget(entry.run_id);
    }
    await this.index([...names].filter((name) => !indexed.has(name)));
    this.readAt = changedAt !== undefined && Date.now() - changedAt >= SETTLED_MS ? changedAt : undefined;
    if (this.lines > 2 * this.byId.size + 1000) await this.compact();
  }

  /** Reads the records of run directories the index lacks and indexes them; remembers those without one. */
  private async index(names: string[]): Promise<void> {
    const found: RunRecord[] = [];
    this.unindexed.clear();
    for (let start = 0; start < names.length; start += READ_BATCH) {
      const batch = names.slice(start, start + READ_BATCH);
      const records = await Promise.all(batch.map((name) => this.readRecord(name).catch(() => undefined)));
      for (const [index, record] of records.entries()) {
        if (record !== undefined) found.push(record);
        else this.unindexed.add(batch[index]!);
      }
    }
    await this.noteAll(found);
  }

  /** Rewrites the file with the runs indexed now (a line another process appends meanwhile is found again by reconcile). */
  private async compact(): Promise<void> {
    const text = [...this.byId.values()].map(lineOf).join('');
    try {
      await writeAtomic(this.file, text);
    } catch {
      return; // the old file still serves; the next listing tries again
    }
    this.offset = Buffer.byteLength(text);
    this.lines = this.byId.size;
  }
}

/** A directory's modification time in milliseconds, or undefined when it does not exist. */
async function modifiedAt(directory: string): Promise<number | undefined> {
  try {
    return (await stat(directory)).mtimeMs;
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ENOENT') return undefined;
    throw traceFileFailure('read', directory, error);
  }
}

function lineOf(record: Pick<RunRecord, 'run_id' | 'agent' | 'created_at'>): string {
  return JSON.stringify({ run_id: record.run_id, agent: record.agent, created_at: record.created_at }) + '\n';
}

/** An index line, or undefined for one that is not (a torn or foreign line: reconcile finds its run). */
function entryOf(line: string): Pick<RunRecord, 'run_id' | 'agent' | 'created_at'> | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return undefined;
  }
  const { run_id, agent, created_at } = (parsed ?? {}) as Record<string, unknown>;
  return typeof run_id === 'string' && typeof agent === 'string' && typeof created_at === 'string'
    ? { run_id, agent, created_at }
    : undefined;
}
