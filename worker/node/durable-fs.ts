/**
 * What makes a run on Node (`tea-edge serve`, worker/node/local-runs.ts) survive its process: files
 * beside the trace directory's runs, one directory per executing run:
 *
 *   <dir>/durable/<run>/lease.<n>          the process executing the run (exclusive create of the
 *                                          next number: one process wins a run; its mtime is the
 *                                          heartbeat, touched every leaseMs / 3)
 *   <dir>/durable/<run>/live.ndjson        every event of the executing segment, appended as it
 *                                          comes (a write-ahead log: followers are shown an event
 *                                          only once it is here, so after a crash no event they
 *                                          saw is lost or numbered again)
 *   <dir>/durable/<run>/resume-point.json  the node checkpoint before the current node: a base
 *                                          (src/graph/checkpoint-codec.ts; atomic)
 *   <dir>/durable/<run>/patches/<n>.json   the changes after it, one per node (atomic each); a
 *                                          new base is written first, then the folder goes
 *   <dir>/durable/<run>/tools/<key>.json   recorded results of side-effecting tool calls
 *
 * The directory goes when the segment ends, and only by the process holding its newest lease,
 * once the run's final record is written (local-runs.ts), renamed away in one step before it is
 * removed (GONE_PREFIX: a kill mid-removal never leaves half a segment): recovery files are never deleted before
 * what replaces them is durable, nor by a process that does not own them. A process that starts
 * (and every leaseMs after) looks for directories whose lease is stale (its heartbeat older than
 * leaseMs, or its process gone on this machine), claims the next lease, copies the live log's
 * events the trace store lacks into it, and continues the run from its node checkpoint, or closes
 * it as failed saying why (worker/durable-continue.ts). A directory it cannot read (a corrupt node
 * checkpoint, an unreadable lease) is that run's problem only: the scan goes on with the others.
 */
import { mkdir, open, rename, stat, utimes } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { type AgentError, toAgentError } from '../../src/core/agent-error.js';
import { fromStoredJson, toStoredJson } from '../../src/storage/json-copy.js';
import type { AgentEvent } from '../../src/core/events.js';
import type { RunDurability } from '../../src/graph/run-types.js';
import { baseOf, headOf } from '../../src/graph/checkpoint-codec.js';
import type { CheckpointBase, CheckpointWrite } from '../../src/graph/node-checkpoint.js';
import type { TraceStore } from '../../src/core/trace-store.js';
import {
  appendText,
  describeFile,
  listDirectory,
  readTextIfExists,
  removePath,
  traceFileFailure,
  writeAtomic,
} from '../../adapters/fs/fs-files.js';
import { safeName } from '../../adapters/fs/safe-name.js';
import { readStoredPoint, restartsFor, type ResumePoint, type StoredWrite } from '../durable-continue.js';

/** Default milliseconds after which a lease whose heartbeat stopped may be taken over. */
export const DEFAULT_LEASE_MS = 10_000;

/**
 * An ended segment's directory is renamed to `.gone-<run>.<uuid>` (one atomic step) before it is
 * removed file by file: a process killed while removing it leaves no half segment (a lease without
 * its live log or node checkpoint) that a scan would take for a run to continue or close failed.
 */
const GONE_PREFIX = '.gone-';

interface LeaseOwner {
  run_id: string;
  host: string;
  pid: number;
  /** This process's instance (a pid can be reused). */
  instance: string;
}

/** resume-point.json: the base, the role the run executes with, and the restart count when it was written (patches/<n>.json: a patch and its count). */
interface StoredBase {
  base: CheckpointBase;
  role: string | undefined;
  restarts: number;
}

/** A run directory found with a stale lease: claimed by this process, to be continued or closed. */
export interface OrphanRun {
  runId: string;
  point: ResumePoint | undefined;
  /** Why its node checkpoint could not be read (the run is closed failed with it). */
  unreadable?: AgentError;
}

export class DurableRunFiles {
  private readonly owner = { host: hostname(), pid: process.pid, instance: crypto.randomUUID() };
  /** Runs this process holds, with the number of its lease. */
  private readonly held = new Map<string, number>();
  /** The first failed write to a run's live log: the run fails at its next node (saveProgress). */
  private readonly liveFailures = new Map<string, AgentError>();
  private readonly heartbeat: ReturnType<typeof setInterval>;
  private scanner: ReturnType<typeof setInterval> | undefined;
  private tick: (() => void) | undefined;

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
    this.tick = tick;
    tick();
    this.scanner = setInterval(tick, this.leaseMs);
    this.scanner.unref?.();
  }

  /** Scans now rather than at the next tick (a request found a run whose process may be gone). */
  scanSoon(): void {
    this.tick?.();
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
    return this.createLease(runId, (current ?? 0) + 1, true);
  }

  /**
   * Takes over a run whose process died: true when its newest lease is stale and this process
   * created the next one. Never makes the run's directory: a segment that ended (renamed away)
   * since the scan listed it stays ended, where a new lease would start a segment of a finished run.
   */
  private async takeOver(runId: string): Promise<boolean> {
    if (this.held.has(runId)) return false;
    const current = await this.currentLease(runId);
    if (current === undefined || !(await this.isStale(runId, current))) return false;
    return this.createLease(runId, current + 1, false);
  }

  private async createLease(runId: string, lease: number, makeDirectory: boolean): Promise<boolean> {
    const owner: LeaseOwner = { run_id: runId, ...this.owner };
    if (
      !(await createWith(path.join(this.runDirectory(runId), `lease.${lease}`), JSON.stringify(owner), makeDirectory))
    )
      return false;
    this.held.set(runId, lease);
    return true;
  }

  /**
   * True when the run has a segment's recovery files (a lease): it executes here or in another
   * process, or its process died and a scan will continue it. Nothing may start a segment of it
   * by another way.
   */
  async hasSegment(runId: string): Promise<boolean> {
    return (await this.currentLease(runId)) !== undefined;
  }

  private async currentLease(runId: string): Promise<number | undefined> {
    const numbers = (await listDirectory(this.runDirectory(runId)))
      .map((name) => /^lease\.(\d+)$/.exec(name)?.[1])
      .filter((n) => n !== undefined)
      .map(Number);
    return numbers.length === 0 ? undefined : Math.max(...numbers);
  }

  /** A lease is stale when its heartbeat is older than leaseMs, or its process is gone from this machine. */
  private async isStale(runId: string, lease: number): Promise<boolean> {
    const file = path.join(this.runDirectory(runId), `lease.${lease}`);
    // Unreadable (EACCES) or torn by a crash while it was written: the heartbeat alone decides.
    const text = await readTextIfExists(file).catch(() => '');
    if (text === undefined) return true;
    let owner: LeaseOwner | undefined;
    try {
      owner = JSON.parse(text) as LeaseOwner;
    } catch {
      owner = undefined;
    }
    if (owner !== undefined && owner.host === this.owner.host && !processAlive(owner.pid)) return true;
    const touched = await stat(file).then(
      (info) => info.mtimeMs,
      () => 0,
    );
    return Date.now() - touched > this.leaseMs;
  }

  private async touchLeases(): Promise<void> {
    const now = new Date();
    for (const [runId, lease] of this.held)
      await utimes(path.join(this.runDirectory(runId), `lease.${lease}`), now, now).catch(() => undefined);
  }

  // The executing segment

  /**
   * The hooks a run executing here is given (RunOptions.durability); `continuedFrom`: the point a
   * dead process's run is continued from (its restart count carries over, durable-continue.ts).
   */
  durability(runId: string, role: string | undefined, continuedFrom?: ResumePoint): RunDurability {
    const directory = this.runDirectory(runId);
    return {
      saveProgress: async (write: CheckpointWrite) => {
        // Followers were shown events the live log could not keep: after a crash they would be lost.
        const liveFailure = this.liveFailures.get(runId);
        if (liveFailure !== undefined) throw liveFailure;
        // The events before the node are in the trace store's buffer: written first.
        await this.traceStore.flush(runId);
        const restarts = restartsFor(headOf(write), continuedFrom);
        if (write.kind === 'patch') {
          await writeAtomic(
            path.join(directory, 'patches', `${write.index}.json`),
            toStoredJson({ patch: write, restarts }, `node checkpoint of run '${runId}'`),
          );
        } else await this.writeBase(runId, { base: write, role, restarts });
      },
      recordedResult: async (key) => {
        const text = await readTextIfExists(path.join(directory, 'tools', `${safeName(key)}.json`));
        return text === undefined ? undefined : { value: fromStoredJson<unknown>(text, key) };
      },
      recordResult: (key, value) =>
        writeAtomic(path.join(directory, 'tools', `${safeName(key)}.json`), toStoredJson(value, `tool result ${key}`)),
    };
  }

  /**
   * Appends events to the run's live log (the caller serialises calls per run). A failure is
   * remembered: the run fails with it before its next node (saveProgress).
   */
  async appendLive(runId: string, events: readonly AgentEvent[]): Promise<void> {
    try {
      await appendText(
        path.join(this.runDirectory(runId), 'live.ndjson'),
        events.map((event) => JSON.stringify(event) + '\n').join(''),
      );
    } catch (error) {
      if (!this.liveFailures.has(runId)) this.liveFailures.set(runId, toAgentError(error, 'STORAGE_ERROR'));
      throw error;
    }
  }

  /**
   * The segment ended here and its end is recorded: its files go, and the run is no longer held.
   * Only the holder of the newest lease removes them (a process that lost the run to another, or
   * never held it, leaves them to their owner).
   */
  async endSegment(runId: string): Promise<void> {
    const lease = this.held.get(runId);
    this.liveFailures.delete(runId);
    if (lease === undefined) return;
    if ((await this.currentLease(runId)) === lease) await this.removeSegment(runId);
    this.held.delete(runId);
  }

  /** Takes the segment's directory away at once (GONE_PREFIX), then removes it. */
  private async removeSegment(runId: string): Promise<void> {
    const directory = this.runDirectory(runId);
    const gone = path.join(this.directory, 'durable', `${GONE_PREFIX}${safeName(runId)}.${crypto.randomUUID()}`);
    try {
      await rename(directory, gone);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw traceFileFailure('remove', directory, error);
    }
    // The segment has ended once renamed: its files go in the background, and a removal that fails
    // (or is cut short) is done again by the next scan.
    void removePath(gone).catch(() => undefined);
  }

  /**
   * Lets a run go without removing its files: its lease is no longer renewed, so after leaseMs a
   * scan (of this process or another) claims it again and continues or closes it.
   */
  release(runId: string): void {
    this.held.delete(runId);
    this.liveFailures.delete(runId);
  }

  /** True while this process holds the run's lease. */
  holds(runId: string): boolean {
    return this.held.has(runId);
  }

  /** Counts one continuation from the current checkpoint (written again as a base); returns the counted point. */
  async countRestart(runId: string, point: ResumePoint): Promise<ResumePoint> {
    const counted: ResumePoint = { ...point, restarts: point.restarts + 1 };
    await this.writeBase(runId, { base: baseOf(point.checkpoint), role: point.role, restarts: counted.restarts });
    return counted;
  }

  /** A new base, then the patches of the old one go (a crash between leaves patches the base's id ignores). */
  private async writeBase(runId: string, stored: StoredBase): Promise<void> {
    const directory = this.runDirectory(runId);
    await writeAtomic(
      path.join(directory, 'resume-point.json'),
      toStoredJson(stored, `node checkpoint of run '${runId}'`),
    );
    const patches = path.join(directory, 'patches');
    if ((await listDirectory(patches)).length > 0) await removePath(patches);
  }

  /** The node checkpoint a run directory holds (its base and patches replayed), or undefined. */
  private async readPoint(runId: string): Promise<ResumePoint | undefined> {
    const directory = this.runDirectory(runId);
    const baseFile = path.join(directory, 'resume-point.json');
    const text = await readTextIfExists(baseFile);
    if (text === undefined) return undefined;
    const what = describeFile(baseFile).what;
    const stored = fromStoredJson<StoredWrite & { role?: unknown }>(text, what);
    const patches: StoredWrite[] = [];
    for (const name of (await listDirectory(path.join(directory, 'patches'))).filter((file) =>
      /^\d+\.json$/.test(file),
    )) {
      const file = path.join(directory, 'patches', name);
      const patchText = await readTextIfExists(file);
      if (patchText !== undefined)
        patches.push(
          fromStoredJson<StoredWrite>(patchText, `the node checkpoint patch 'patches/${name}' of run '${runId}'`),
        );
    }
    return {
      ...readStoredPoint(stored ?? { restarts: 0 }, patches, what),
      role: typeof stored?.role === 'string' ? stored.role : undefined,
    };
  }

  // Recovery

  /**
   * Claims every run whose process died (stale lease) and returns them with their resume points.
   * A run whose directory cannot be read is skipped (tried again next scan), one whose node
   * checkpoint is corrupt comes back `unreadable`: neither stops the scan for the others.
   */
  async claimOrphans(): Promise<OrphanRun[]> {
    const found: OrphanRun[] = [];
    for (const name of await listDirectory(path.join(this.directory, 'durable'))) {
      if (name.startsWith(GONE_PREFIX)) {
        // An ended segment whose removal was cut short (its process killed, or the disk refused).
        await removePath(path.join(this.directory, 'durable', name)).catch(() => undefined);
        continue;
      }
      const runId = await this.runIdOf(name).catch(() => undefined);
      if (runId === undefined || !(await this.takeOver(runId).catch(() => false))) continue;
      try {
        found.push({ runId, point: await this.readPoint(runId) });
      } catch (error) {
        found.push({ runId, point: undefined, unreadable: toAgentError(error, 'STORAGE_ERROR') });
      }
    }
    return found;
  }

  /**
   * The run id of a run directory: from any of its leases, else its node checkpoint, else its
   * name when that is an id safeName keeps as it is (the ids serve makes): a lease torn or
   * unreadable never hides a run from the scan.
   */
  private async runIdOf(name: string): Promise<string | undefined> {
    const directory = path.join(this.directory, 'durable', name);
    const files = await listDirectory(directory);
    for (const file of files) {
      if (!file.startsWith('lease.')) continue;
      const owner = await readJson<LeaseOwner>(path.join(directory, file));
      if (typeof owner?.run_id === 'string' && safeName(owner.run_id) === name) return owner.run_id;
    }
    const point = await readJson<{ base?: { checkpoint?: { run_id?: unknown } }; checkpoint?: { run_id?: unknown } }>(
      path.join(directory, 'resume-point.json'),
    );
    const fromPoint = (point?.base ?? point)?.checkpoint?.run_id;
    if (typeof fromPoint === 'string' && safeName(fromPoint) === name) return fromPoint;
    return safeName(name) === name && files.some((file) => file.startsWith('lease.')) ? name : undefined;
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
   * shown to followers but not yet stored). Returns the run's last event, and the `done` that ended
   * the dead segment if it got that far: a `done` in the trace store from before the segment (the
   * pause a resumed segment continued) is not one.
   */
  async recoverEvents(runId: string): Promise<{ last: AgentEvent | undefined; segmentDone: AgentEvent | undefined }> {
    const stored = await this.traceStore.readEvents(runId);
    const last = stored.at(-1)?.seq ?? 0;
    const live = await this.liveEvents(runId);
    const missing = live.filter((event) => event.seq > last);
    if (missing.length > 0) {
      await this.traceStore.appendEvents(runId, missing);
      await this.traceStore.flush(runId);
    }
    const final = missing.at(-1) ?? stored.at(-1);
    // The segment's events start at its live log's first; a segment that logged nothing ended nothing.
    const start = live[0]?.seq;
    const segmentDone = final?.type === 'done' && start !== undefined && final.seq >= start ? final : undefined;
    return { last: final, segmentDone };
  }
}

/** A JSON file's value; undefined when it is missing, unreadable or not JSON. */
async function readJson<T>(filePath: string): Promise<T | undefined> {
  try {
    const text = await readTextIfExists(filePath);
    return text === undefined ? undefined : (JSON.parse(text) as T);
  } catch {
    return undefined;
  }
}

/**
 * Creates a file with `text` only if it does not exist; true when this call created it. Its folder
 * is made first, unless `makeDirectory` is false: then a missing folder answers false too.
 */
async function createWith(filePath: string, text: string, makeDirectory = true): Promise<boolean> {
  try {
    if (makeDirectory) await mkdir(path.dirname(filePath), { recursive: true });
    const handle = await open(filePath, 'wx');
    try {
      await handle.writeFile(text, 'utf8');
    } finally {
      await handle.close();
    }
    return true;
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'EEXIST' || (code === 'ENOENT' && !makeDirectory)) return false;
    throw traceFileFailure('create', filePath, error);
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
