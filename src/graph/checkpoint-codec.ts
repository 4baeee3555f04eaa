/**
 * Node checkpoints written in proportion to the change (docs/execution-model.md "Checkpoints and
 * eviction"): a durable host is handed a whole checkpoint (a base) once, then, before each later
 * node, a patch holding only the top-level keys of the state and of the run's memory whose value
 * changed since the checkpoint before, with the small fields (node, usage, seq, …) whole. A new
 * base is written when the patches since the last one add up to more bytes than it, or number
 * MAX_PATCHES, so what a host stores stays within about twice the state and a read replays a
 * bounded list. The store keeps the base and its patches; `decodeCheckpoint` replays them.
 *
 * A value changed when it is not the same object as before: the engine merges each node's update
 * (a fresh copy) into the state's top level, so a key no node updated keeps its object. A base
 * names itself (`base_id`) and its patches are numbered from 1: a patch left from an older base
 * (a host that died between writing a new base and dropping the old patches) is ignored, and a
 * missing one is a corrupt checkpoint, never a silently older state.
 *
 * Pure: no host APIs, so every durable host (Durable Object SQLite, Deno KV, files) calls the same.
 */
import { AgentError } from '../core/agent-error.js';
import { isPlainObject } from '../util/plain-object.js';
import { isForbiddenKey } from '../util/forbidden-keys.js';
import type { CheckpointBase, CheckpointHead, CheckpointPatch, CheckpointWrite, KeyChanges, NodeCheckpoint } from './node-checkpoint.js';

/** Patches after one base before the next base is written whatever their size. */
export const MAX_PATCHES = 500;

/** The fields every write carries whole (the node about to run, usage, …). */
export function headOf(write: CheckpointWrite): CheckpointHead {
  return write.kind === 'base' ? write.checkpoint : write.head;
}

/** A base of a checkpoint read back (a host writing it again, e.g. with a new restart count). */
export function baseOf(checkpoint: NodeCheckpoint): CheckpointBase {
  return { kind: 'base', base_id: crypto.randomUUID(), checkpoint };
}

/** An encoded write, applied to the encoder only once the host stored it (`commit`). */
export interface EncodedWrite {
  write: CheckpointWrite;
  /** JSON size of `write` in UTF-16 units (what the host serialises, give or take its envelope). */
  size: number;
  commit(): void;
}

/** The run's side of one checkpoint: its small fields, and its state and memory as the run holds them (not copied). */
export interface LiveCheckpoint {
  head: CheckpointHead;
  state: Readonly<Record<string, unknown>>;
  memory: ReadonlyMap<string, unknown>;
}

/**
 * Turns the checkpoints of one run segment into base and patch writes. `copy` makes the inert,
 * sanitised copy of what is written (the run's sanitiser): only the changed values are copied.
 */
export class CheckpointEncoder {
  private base: { id: string; size: number } | undefined;
  private patches = 0;
  private patchBytes = 0;
  /** The values of the checkpoint last stored, by top-level key (the run's own objects). */
  private stateSeen = new Map<string, unknown>();
  private memorySeen = new Map<string, unknown>();

  constructor(private readonly maxPatches = MAX_PATCHES) {}

  encode(live: LiveCheckpoint, copy: <T>(value: T) => T): EncodedWrite {
    const stateNow = new Map(Object.entries(live.state));
    const memoryNow = new Map(live.memory);
    const commit = (base: { id: string; size: number }, patches: number, patchBytes: number) => () => {
      this.base = base;
      this.patches = patches;
      this.patchBytes = patchBytes;
      this.stateSeen = stateNow;
      this.memorySeen = memoryNow;
    };
    if (this.base !== undefined && this.patches < this.maxPatches) {
      const patch: CheckpointPatch = copy({
        kind: 'patch',
        base_id: this.base.id,
        index: this.patches + 1,
        head: live.head,
        state: changes(this.stateSeen, stateNow),
        memory: changes(this.memorySeen, memoryNow),
      });
      const size = JSON.stringify(patch).length;
      if (this.patchBytes + size <= this.base.size) return { write: patch, size, commit: commit(this.base, this.patches + 1, this.patchBytes + size) };
    }
    const write: CheckpointBase = copy({ kind: 'base', base_id: crypto.randomUUID(), checkpoint: { ...live.head, state: live.state, memory: Object.fromEntries(live.memory) } });
    const size = JSON.stringify(write).length;
    return { write, size, commit: commit({ id: write.base_id, size }, 0, 0) };
  }
}

function changes(before: ReadonlyMap<string, unknown>, now: ReadonlyMap<string, unknown>): KeyChanges {
  const set: Record<string, unknown> = {};
  for (const [key, value] of now) if (before.get(key) !== value || !before.has(key)) set[key] = value;
  const unset = [...before.keys()].filter((key) => !now.has(key));
  return { set, unset };
}

/**
 * The node checkpoint a base and the patches stored after it make: the patches of this base
 * (others are left from an older one), replayed in order. `where` names the store's record in
 * errors. Anything that is not a base, a patch with a gap before it, or a malformed field is
 * STORAGE_ERROR: the checkpoint is corrupt.
 */
export function decodeCheckpoint(base: unknown, patches: readonly unknown[], where: string): NodeCheckpoint {
  const start = readBase(base, where);
  const own = patches.flatMap((patch, position) => {
    const read = readPatch(patch, `${where}, patch record ${position + 1}`, start.base_id);
    return read === undefined ? [] : [read];
  });
  own.sort((left, right) => left.index - right.index);
  const state = { ...start.checkpoint.state };
  const memory = { ...start.checkpoint.memory };
  let head: CheckpointHead = start.checkpoint;
  own.forEach((patch, position) => {
    if (patch.index !== position + 1) throw corrupt(where, `patch ${position + 1} of base ${start.base_id} is missing (the next stored is ${patch.index})`);
    apply(state, patch.state);
    apply(memory, patch.memory);
    head = patch.head;
  });
  return { ...head, state, memory };
}

function apply(target: Record<string, unknown>, change: KeyChanges): void {
  for (const key of Object.keys(change.set)) if (!isForbiddenKey(key)) target[key] = change.set[key];
  for (const key of change.unset) delete target[key];
}

/** A stored base; a whole node checkpoint written before bases existed is read as one. */
function readBase(value: unknown, where: string): CheckpointBase {
  if (isPlainObject(value) && value.kind === 'base') {
    if (typeof value.base_id !== 'string') throw corrupt(where, 'its base has no base_id');
    return { kind: 'base', base_id: value.base_id, checkpoint: readCheckpoint(value.checkpoint, where) };
  }
  if (isPlainObject(value) && value.kind === undefined) return { kind: 'base', base_id: '', checkpoint: readCheckpoint(value, where) };
  throw corrupt(where, 'it is not a node checkpoint');
}

function readCheckpoint(value: unknown, where: string): NodeCheckpoint {
  if (!isPlainObject(value) || typeof value.run_id !== 'string' || typeof value.node !== 'string' || !isPlainObject(value.state) || !isPlainObject(value.memory) || !isPlainObject(value.usage)) {
    throw corrupt(where, 'its checkpoint lacks run_id, node, state, memory or usage');
  }
  return value as unknown as NodeCheckpoint;
}

/** A stored patch of base `baseId`; undefined for a patch of another (older) base. */
function readPatch(value: unknown, where: string, baseId: string): CheckpointPatch | undefined {
  if (!isPlainObject(value) || value.kind !== 'patch' || typeof value.base_id !== 'string') throw corrupt(where, 'it is not a checkpoint patch');
  if (value.base_id !== baseId) return undefined;
  if (!Number.isInteger(value.index) || (value.index as number) < 1) throw corrupt(where, 'its index is not a whole number from 1');
  const head = value.head;
  if (!isPlainObject(head) || typeof head.run_id !== 'string' || typeof head.node !== 'string' || !isPlainObject(head.usage)) throw corrupt(where, 'its head lacks run_id, node or usage');
  if (!isChanges(value.state) || !isChanges(value.memory)) throw corrupt(where, 'its state or memory change is malformed');
  return value as unknown as CheckpointPatch;
}

function isChanges(value: unknown): value is KeyChanges {
  return isPlainObject(value) && isPlainObject(value.set) && Array.isArray(value.unset) && value.unset.every((key) => typeof key === 'string');
}

function corrupt(where: string, reason: string): AgentError {
  return new AgentError('STORAGE_ERROR', `${where} is corrupt: ${reason}`, { details: { record: where } });
}
