/**
 * What Deno KV keeps about a run besides its events and its lease (worker/deno/deno-runs.ts), under
 * the prefix: `['start', run_id]` what it was started or resumed with, `['progress', run_id]` the
 * node checkpoint it goes on from after a death (a base, src/graph/checkpoint-codec.ts, and under
 * `['progress', run_id, 'patch', n]` the changes after it, one per node; a base drops them in its
 * commit), `['tool', run_id, key]` recorded results of
 * side-effecting tool calls, `['cancel', run_id]` a cancel for the process executing it. Values
 * are JSON text, cut into pieces under Deno KV's 64 KiB value limit.
 */
import type { DenoKvAtomic, DenoKvKey, DenoKvLike } from '../../adapters/deno-kv/deno-kv-like.js';
import { commit, getJson, listKeys, setText } from '../../adapters/deno-kv/deno-kv-texts.js';
import { readStoredPoint, type ResumePoint, type StoredWrite } from '../durable-continue.js';
import { baseOf } from '../../src/graph/checkpoint-codec.js';
import type { CheckpointWrite } from '../../src/graph/node-checkpoint.js';
import type { RunOwner } from '../../src/core/trace-store.js';

/** The caller a segment runs for: its role (tool permissions) and, for a new run, its owner. */
export type RunCaller = Pick<StartInfo, 'role' | 'owner'>;

/** What a run was started with. */
export interface StartInfo {
  agent: string;
  input: Record<string, unknown>;
  role?: string;
  /** Who started it (RunRecord.owner); a resumed run keeps its checkpoint's. */
  owner?: RunOwner;
  /** `resume`: the segment after a pause (it cannot be started again from the input). */
  segment: 'start' | 'resume';
}

/** The node checkpoint a run goes on from, and how often it was continued from it already. */
export type Progress = Omit<ResumePoint, 'role'>;

export class DenoRunState {
  constructor(
    private readonly kv: DenoKvLike,
    private readonly prefix: DenoKvKey,
    private readonly maxValueBytes: number,
    private readonly expireIn: number | undefined,
  ) {}

  key(part: 'start' | 'progress' | 'tool' | 'cancel' | 'resumed', runId: string, ...rest: string[]): DenoKvKey {
    return [...this.prefix, part, runId, ...rest];
  }

  /** The prefix of every run's key of one kind. */
  keysOf(part: 'start' | 'progress' | 'tool' | 'cancel' | 'resumed'): DenoKvKey {
    return [...this.prefix, part];
  }

  /**
   * Adds a resume's claim of one pause to a commit: the commit fails when another resume claimed
   * the same checkpoint, whatever the leases say (a lease that lapsed under load must not let a
   * second resume of the same pause win).
   */
  claimPause(atomic: DenoKvAtomic, runId: string, checkpointId: string): void {
    const key = this.key('resumed', runId, checkpointId);
    atomic
      .check({ key, versionstamp: null })
      .set(key, true, this.expireIn !== undefined ? { expireIn: this.expireIn } : undefined);
  }

  /** Adds the write of a run's start to a commit (taking its lease, usually). */
  setStart(atomic: DenoKvAtomic, runId: string, start: StartInfo): void {
    setText(atomic, this.key('start', runId), JSON.stringify(start), this.maxValueBytes, this.expireIn);
  }

  start(runId: string): Promise<StartInfo | undefined> {
    return getJson<StartInfo>(this.kv, this.key('start', runId));
  }

  /** The node checkpoint (its base and patches replayed) and the restart count of its newest write. */
  async progress(runId: string): Promise<Progress | undefined> {
    const key = this.key('progress', runId);
    const stored = await getJson<StoredWrite>(this.kv, key);
    if (stored === undefined) return undefined;
    const patches: StoredWrite[] = [];
    for (const patchKey of await listKeys(this.kv, [...key, 'patch'])) {
      // Pieces of a long patch sit one level below its key.
      if (patchKey.length !== key.length + 2) continue;
      const patch = await getJson<StoredWrite>(this.kv, patchKey);
      if (patch !== undefined) patches.push(patch);
    }
    return readStoredPoint(stored, patches, `Deno KV node checkpoint of run '${runId}'`);
  }

  /** Saves a node checkpoint write: a base replaces the value and its patches in one commit, a patch is added. */
  saveWrite(runId: string, write: CheckpointWrite, restarts: number): Promise<void> {
    const key = this.key('progress', runId);
    if (write.kind === 'base') return this.putJson(key, { base: write, restarts });
    return this.putJson([...key, 'patch', String(write.index)], { patch: write, restarts });
  }

  /** Saves a node checkpoint read back, whole (a new restart count). */
  saveProgress(runId: string, progress: Progress): Promise<void> {
    return this.saveWrite(runId, baseOf(progress.checkpoint), progress.restarts);
  }

  recordedResult(runId: string, key: string): Promise<{ value: unknown } | undefined> {
    return getJson<{ value: unknown }>(this.kv, this.key('tool', runId, key));
  }

  recordResult(runId: string, key: string, value: unknown): Promise<void> {
    return this.putJson(this.key('tool', runId, key), { value });
  }

  /**
   * Deletes what a stopped segment leaves: its node checkpoint and recorded tool results (they
   * live for one segment, as in the run coordinator), and its start unless it paused.
   */
  async clearSegment(runId: string, paused: boolean): Promise<void> {
    const keys = [this.key('progress', runId), ...(paused ? [] : [this.key('start', runId)])];
    const doomed = [...keys];
    for (const key of [...keys, this.key('tool', runId)]) doomed.push(...(await listKeys(this.kv, key)));
    for (let index = 0; index < doomed.length; index += 400) {
      const atomic = this.kv.atomic();
      for (const key of doomed.slice(index, index + 400)) atomic.delete(key);
      await commit(atomic);
    }
  }

  /** Writes a JSON value (replacing an older one's pieces) in one commit. */
  private async putJson(key: DenoKvKey, value: unknown): Promise<void> {
    const stale = await listKeys(this.kv, key);
    const atomic = this.kv.atomic();
    for (const piece of stale) atomic.delete(piece);
    setText(atomic, key, JSON.stringify(value), this.maxValueBytes, this.expireIn);
    await commit(atomic);
  }
}
