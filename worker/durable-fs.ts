/**
 * What makes a run on Node (`tea-edge serve`, worker/local-runs.ts) survive its process: files
 * beside the trace directory's runs, one directory per executing run:
 *
 *   <dir>/durable/<run>/lease.<n>          the process executing the run (exclusive create of the
 *                                          next number: one process wins a run; its mtime is the
 *                                          heartbeat, touched every leaseMs / 3)
 *   <dir>/durable/<run>/live.ndjson        every event of the executing segment, appended as it
 *                                          comes (a write-ahead log: followers are shown an event
 *                                          only once it is here, so after a crash no event they
 *                                          saw is lost or numbered again)
 *   <dir>/durable/<run>/resume-point.json  the node checkpoint before the current node (atomic)
 *   <dir>/durable/<run>/tools/<key>.json   recorded results of side-effecting tool calls
 *
 * The directory goes when the segment ends. A process that starts (and every leaseMs after) looks
 * for directories whose lease is stale (its heartbeat older than leaseMs, or its process gone on
 * this machine), claims the next lease, copies the live log's events the trace store lacks into it,
 * and continues the run from its node checkpoint, or closes it as failed saying why
 * (worker/durable-continue.ts).
 */
import { mkdir, open, readFile, stat, utimes } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { fromStoredJson, toStoredJson } from '../src/storage/json-copy.js';
import type { AgentEvent } from '../src/events/event.js';
import type { NodeCheckpoint, RunDurability } from '../src/graph/run-types.js';
import type { TraceStore } from '../src/storage/trace-store.js';
import { appendText, listDirectory, readTextIfExists, removePath, storageError, writeAtomic } from '../adapters/fs/fs-files.js';
import { safeName } from '../adapters/fs/safe-name.js';
import { restartsFor, type ResumePoint } from './durable-continue.js';

/** Default milliseconds after which a lease whose heartbeat stopped may be taken over. */
export const DEFAULT_LEASE_MS = 10_000;

interface LeaseOwner {
  run_id: string;
  host: string;
  pid: number;
  /** This process's instance (a pid can be reused). */
  instance: string;
}

/** A run directory found with a stale lease: claimed by this process, to be continued or closed. */
export interface OrphanRun {
  runId: string;
  point: ResumePoint | undefined;
}

export class DurableRunFiles {
  private readonly owner = { host: hostname(), pid: process.pid, instance: crypto.randomUUID() };
  /** Runs this process holds, with the number of its lease. */
  private readonly held = new Map<string, number>();
  private readonly heartbeat: ReturnType<typeof setInterval>;
  private scanner: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly directory: string,
    private readonly traceStore: TraceStore,
    readonly leaseMs = DEFAULT_LEASE_MS,
  ) {
    this.heartbeat = setInterval(() => void this.touchLeases(), Math.max(50, Math.floor(leaseMs / 3)));
    this.heartbeat.unref?.();
  }

  /** Runs `scan` now and every leaseMs (one at a time): how a server finds runs whose process died. */
  onScan(scan: () => Promise<void>): void {
    let running: Promise<void> | undefined;
    const tick = () => {
      running ??= scan().finally(() => (running = undefined));
    };
    tick();
    this.scanner = setInterval(tick, this.leaseMs);
    this.scanner.unref?.();
  }

  close(): void {
    clearInterval(this.heartbeat);
    clearInterval(this.scanner);
  }

  private runDirectory(runId: string): string {
    return path.join(this.directory, 'durable', safeName(runId));
  }

  // Leases

  /** Claims the run for this process: true when no live process holds it and this one created the next lease. */
  async claim(runId: string): Promise<boolean> {
    if (this.held.has(runId)) return false;
    const current = await this.currentLease(runId);
    if (current !== undefined && !(await this.isStale(runId, current))) return false;
    const next = (current ?? 0) + 1;
    const owner: LeaseOwner = { run_id: runId, ...this.owner };
    if (!(await createWith(path.join(this.runDirectory(runId), `lease.${next}`), JSON.stringify(owner)))) return false;
    this.held.set(runId, next);
    return true;
  }

  private async currentLease(runId: string): Promise<number | undefined> {
    const numbers = (await listDirectory(this.runDirectory(runId))).map((name) => /^lease\.(\d+)$/.exec(name)?.[1]).filter((n) => n !== undefined).map(Number);
    return numbers.length === 0 ? undefined : Math.max(...numbers);
  }

  /** A lease is stale when its heartbeat is older than leaseMs, or its process is gone from this machine. */
  private async isStale(runId: string, lease: number): Promise<boolean> {
    const file = path.join(this.runDirectory(runId), `lease.${lease}`);
    const text = await readTextIfExists(file);
    if (text === undefined) return true;
    let owner: LeaseOwner | undefined;
    try {
      owner = JSON.parse(text) as LeaseOwner;
    } catch {
      owner = undefined; // a lease torn by a crash while it was written
    }
    if (owner !== undefined && owner.host === this.owner.host && !processAlive(owner.pid)) return true;
    const touched = await stat(file).then((info) => info.mtimeMs, () => 0);
    return Date.now() - touched > this.leaseMs;
  }

  private async touchLeases(): Promise<void> {
    const now = new Date();
    for (const [runId, lease] of this.held) await utimes(path.join(this.runDirectory(runId), `lease.${lease}`), now, now).catch(() => undefined);
  }

  // The executing segment

  /**
   * The hooks a run executing here is given (RunOptions.durability); `continuedFrom`: the point a
   * dead process's run is continued from (its restart count carries over, durable-continue.ts).
   */
  durability(runId: string, role: string | undefined, continuedFrom?: ResumePoint): RunDurability {
    const directory = this.runDirectory(runId);
    return {
      saveProgress: async (checkpoint: NodeCheckpoint) => {
        // The events before the node are in the trace store's buffer: written first.
        await this.traceStore.flush(runId);
        const point: ResumePoint = { checkpoint, role, restarts: restartsFor(checkpoint, continuedFrom) };
        await writeAtomic(path.join(directory, 'resume-point.json'), toStoredJson(point, `node checkpoint of run '${runId}'`));
      },
      recordedResult: async (key) => {
        const text = await readTextIfExists(path.join(directory, 'tools', `${safeName(key)}.json`));
        return text === undefined ? undefined : { value: fromStoredJson<unknown>(text, key) };
      },
      recordResult: (key, value) => writeAtomic(path.join(directory, 'tools', `${safeName(key)}.json`), toStoredJson(value, `tool result ${key}`)),
    };
  }

  /** Appends events to the run's live log (the caller serialises calls per run). */
  appendLive(runId: string, events: readonly AgentEvent[]): Promise<void> {
    return appendText(path.join(this.runDirectory(runId), 'live.ndjson'), events.map((event) => JSON.stringify(event) + '\n').join(''));
  }

  /** The segment ended here: its files go, and the run is no longer held. */
  async endSegment(runId: string): Promise<void> {
    this.held.delete(runId);
    await removePath(this.runDirectory(runId));
  }

  /** Counts one continuation from the current checkpoint (kept in the resume point); returns the counted point. */
  async countRestart(runId: string, point: ResumePoint): Promise<ResumePoint> {
    const counted: ResumePoint = { ...point, restarts: point.restarts + 1 };
    await writeAtomic(path.join(this.runDirectory(runId), 'resume-point.json'), toStoredJson(counted, `node checkpoint of run '${runId}'`));
    return counted;
  }

  // Recovery

  /** Claims every run whose process died (stale lease) and returns them with their resume points. */
  async claimOrphans(): Promise<OrphanRun[]> {
    const found: OrphanRun[] = [];
    for (const name of await listDirectory(path.join(this.directory, 'durable'))) {
      const runId = await this.runIdOf(name);
      if (runId === undefined || !(await this.claim(runId))) continue;
      const text = await readTextIfExists(path.join(this.runDirectory(runId), 'resume-point.json'));
      found.push({ runId, point: text === undefined ? undefined : fromStoredJson<ResumePoint>(text, `node checkpoint of run '${runId}'`) });
    }
    return found;
  }

  /** The run id of a run directory, read from any of its leases. */
  private async runIdOf(name: string): Promise<string | undefined> {
    const directory = path.join(this.directory, 'durable', name);
    for (const file of await listDirectory(directory)) {
      if (!file.startsWith('lease.')) continue;
      try {
        return (JSON.parse(await readFile(path.join(directory, file), 'utf8')) as LeaseOwner).run_id;
      } catch {
        continue;
      }
    }
    return undefined;
  }

  /** The live log's events (a line torn by a crash left out): the segment another process executes. */
  async liveEvents(runId: string): Promise<AgentEvent[]> {
    const lines = ((await readTextIfExists(path.join(this.runDirectory(runId), 'live.ndjson'))) ?? '').split('\n');
    lines.pop(); // empty, or a line torn by a crash
    const events: AgentEvent[] = [];
    for (const line of lines) {
      try {
        if (line !== '') events.push(JSON.parse(line) as AgentEvent);
      } catch {
        // a torn line in the middle: an append that failed halfway
      }
    }
    return events;
  }

  /**
   * Copies into the trace store the events of the live log it lacks (those the dead process had
   * shown to followers but not yet stored), and returns the run's last event.
   */
  async recoverEvents(runId: string): Promise<AgentEvent | undefined> {
    const stored = await this.traceStore.readEvents(runId);
    const last = stored.at(-1)?.seq ?? 0;
    const missing = (await this.liveEvents(runId)).filter((event) => event.seq > last);
    if (missing.length > 0) {
      await this.traceStore.appendEvents(runId, missing);
      await this.traceStore.flush(runId);
    }
    return missing.at(-1) ?? stored.at(-1);
  }
}

/** Creates a file with `text` only if it does not exist; true when this call created it. */
async function createWith(filePath: string, text: string): Promise<boolean> {
  try {
    await mkdir(path.dirname(filePath), { recursive: true });
    const handle = await open(filePath, 'wx');
    try {
      await handle.writeFile(text, 'utf8');
    } finally {
      await handle.close();
    }
    return true;
  } catch (error) {
    if ((error as { code?: string }).code === 'EEXIST') return false;
    throw storageError('create', filePath, error);
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === 'EPERM';
  }
}
