/**
 * File-directory trace and checkpoint stores for Node (the CLI's `--trace-dir`), so a run paused
 * in one process can be resumed by a later one.
 *
 * Layout (names through `safeName`, the real ids live inside the files):
 * ```
 * <dir>/runs/<run>/record.json        the run record (atomic write: temp file + rename)
 * <dir>/runs/<run>/events.ndjson      one event per line, appended
 * <dir>/runs/<run>/checkpoint.json    the newest checkpoint (atomic write)
 * <dir>/runs/<run>/claims/<cp>        one empty file per claimed checkpoint (exclusive create)
 * <dir>/insights/<agent>.json         insights of an agent (atomic write)
 * <dir>/run-index.ndjson              the run index: one line per run, appended (run-index.ts)
 * ```
 *
 * Guarantees: operations on one run are serialised within a store; `appendEvents` buffers and
 * appends to the file every 200 events or 256 KiB, `flush` appends the rest (the engine flushes at
 * the end of a run and at every pause, so a later process sees the whole trace; a crash loses at
 * most the unflushed buffer); `readEvents` flushes the run first; a torn last line of `events.ndjson` (a crash mid
 * append) is ignored on read; record and checkpoint files are never half-written; `claim` is
 * atomic across processes (`open(..., 'wx')`). Listing reads one page of records in the order
 * of the run index (run-index.ts: the index's new lines and one read of `runs/`, not every
 * record) and leaves out one it cannot read or parse. Deleting a run removes its whole directory, checkpoint
 * included: a deleted run cannot be resumed. Events are kept whole (cap them first with
 * `sanitizeEvent`). Every file-system failure is STORAGE_ERROR naming the kind of file, its run and
 * its path inside the directory (never the host's), with the system's reason (fs-files.ts).
 */
import path from 'node:path';
import {
  fromStoredJson,
  toStoredJson,
  type AgentEvent,
  type Checkpoint,
  type CheckpointStore,
  type Insight,
  type ListRunsOptions,
  type RetentionPolicy,
  type RunPage,
  type RunRecord,
  type TraceStore,
} from '../../src/host-storage.js';
import { appendText, createExclusive, describeFile, readTextIfExists, removePath, writeAtomic } from './fs-files.js';
import { safeName } from './safe-name.js';
import { RunIndex } from './run-index.js';

export { safeName } from './safe-name.js';
export { createRootedFileStore } from './rooted-file-store.js';

/** A run's buffered events are appended once this many are waiting (or on flush). */
const BATCH_EVENTS = 200;
const BATCH_BYTES = 256 * 1024;

export interface FsStoreOptions {
  /** The clock used for age-based retention (milliseconds since the epoch). */
  now?: () => number;
}

export interface FsStores {
  traceStore: TraceStore;
  checkpointStore: CheckpointStore;
}

/**
 * Creates the stores over a directory (created on first write).
 *
 * @example
 * const { traceStore, checkpointStore } = createFsStores('.tea-traces');
 * const run = runAgent(agent, input, { traceStore, checkpointStore });
 */
export function createFsStores(directory: string, options: FsStoreOptions = {}): FsStores {
  const now = options.now ?? (() => Date.now());
  const runsDirectory = path.join(directory, 'runs');
  const insightsDirectory = path.join(directory, 'insights');
  /** The tail of each run's chain of pending operations. */
  const pending = new Map<string, Promise<unknown>>();

  /** Event lines appended but not yet written, per run. */
  const buffers = new Map<string, { lines: string[]; bytes: number }>();

  const runDirectory = (runId: string): string => path.join(runsDirectory, safeName(runId));

  /** Runs `operation` after the run's earlier operations, keeping the chain alive after failures. */
  function serialised<T>(runId: string, operation: () => Promise<T>): Promise<T> {
    const previous = pending.get(runId) ?? Promise.resolve();
    const next = previous.then(operation, operation);
    const tail = next.catch(() => undefined);
    pending.set(runId, tail);
    void tail.then(() => {
      if (pending.get(runId) === tail) pending.delete(runId);
    });
    return next;
  }

  /** Appends the run's buffered lines to its NDJSON file, after the run's earlier operations. */
  function writeBuffered(runId: string): Promise<void> {
    return serialised(runId, async () => {
      const buffer = buffers.get(runId);
      if (buffer === undefined || buffer.lines.length === 0) return;
      buffers.delete(runId);
      await appendText(path.join(runDirectory(runId), 'events.ndjson'), buffer.lines.join(''));
    });
  }

  async function readRecord(recordPath: string): Promise<RunRecord | undefined> {
    const text = await readTextIfExists(recordPath);
    return text === undefined ? undefined : fromStoredJson<RunRecord>(text, describeFile(recordPath).what);
  }

  const index = new RunIndex(directory, runsDirectory, (name) =>
    readRecord(path.join(runsDirectory, name, 'record.json')),
  );

  const traceStore: TraceStore = {
    async appendEvents(runId: string, events: AgentEvent[]): Promise<void> {
      if (events.length === 0) return;
      const lines = events.map((event) => toStoredJson(event, `event ${event.seq} of run '${runId}'`) + '\n');
      let buffer = buffers.get(runId);
      if (buffer === undefined) buffers.set(runId, (buffer = { lines: [], bytes: 0 }));
      for (const line of lines) {
        buffer.lines.push(line);
        buffer.bytes += line.length;
      }
      if (buffer.lines.length >= BATCH_EVENTS || buffer.bytes >= BATCH_BYTES) await writeBuffered(runId);
    },

    async flush(runId: string): Promise<void> {
      await writeBuffered(runId);
    },

    async readEvents(runId: string): Promise<AgentEvent[]> {
      await writeBuffered(runId);
      return serialised(runId, async () => {
        const eventsPath = path.join(runDirectory(runId), 'events.ndjson');
        const text = await readTextIfExists(eventsPath);
        if (text === undefined) return [];
        const lines = text.split('\n');
        // The part after the last newline is empty, or a line torn by a crash: not an event.
        lines.pop();
        const what = describeFile(eventsPath).what;
        const events = lines.filter((line) => line !== '').map((line) => fromStoredJson<AgentEvent>(line, what));
        return events.sort((left, right) => left.seq - right.seq);
      });
    },

    async putRun(record: RunRecord): Promise<void> {
      const text = toStoredJson(record, `run record '${record.run_id}'`);
      await serialised(record.run_id, () => writeAtomic(path.join(runDirectory(record.run_id), 'record.json'), text));
      await index.note(record);
    },

    getRun(runId: string): Promise<RunRecord | undefined> {
      return serialised(runId, () => readRecord(path.join(runDirectory(runId), 'record.json')));
    },

    async listRuns(listOptions?: ListRunsOptions): Promise<RunPage> {
      return index.page(listOptions);
    },

    async deleteRun(runId: string): Promise<void> {
      buffers.delete(runId);
      await serialised(runId, () => removePath(runDirectory(runId)));
      index.forget(runId);
    },

    async applyRetention(policy: RetentionPolicy): Promise<number> {
      const retired = await index.retired(policy, now());
      for (const runId of retired) await traceStore.deleteRun(runId);
      return retired.length;
    },

    async getInsights(agent: string): Promise<Insight[]> {
      const insightsPath = path.join(insightsDirectory, `${safeName(agent)}.json`);
      const text = await readTextIfExists(insightsPath);
      return text === undefined ? [] : fromStoredJson<Insight[]>(text, describeFile(insightsPath).what);
    },

    async putInsights(agent: string, insights: Insight[]): Promise<void> {
      const text = toStoredJson(insights, `insights of agent '${agent}'`);
      await writeAtomic(path.join(insightsDirectory, `${safeName(agent)}.json`), text);
    },
  };

  const checkpointStore: CheckpointStore = {
    async save(checkpoint: Checkpoint): Promise<void> {
      const text = toStoredJson(checkpoint, `checkpoint '${checkpoint.checkpoint_id}' of run '${checkpoint.run_id}'`);
      await serialised(checkpoint.run_id, () =>
        writeAtomic(path.join(runDirectory(checkpoint.run_id), 'checkpoint.json'), text),
      );
    },

    loadLatest(runId: string): Promise<Checkpoint | undefined> {
      return serialised(runId, async () => {
        const checkpointPath = path.join(runDirectory(runId), 'checkpoint.json');
        const text = await readTextIfExists(checkpointPath);
        return text === undefined ? undefined : fromStoredJson<Checkpoint>(text, describeFile(checkpointPath).what);
      });
    },

    delete(runId: string): Promise<void> {
      return serialised(runId, () => removePath(path.join(runDirectory(runId), 'checkpoint.json')));
    },

    claim(runId: string, checkpointId: string): Promise<boolean> {
      return createExclusive(path.join(runDirectory(runId), 'claims', safeName(checkpointId)));
    },
  };

  return { traceStore, checkpointStore };
}
