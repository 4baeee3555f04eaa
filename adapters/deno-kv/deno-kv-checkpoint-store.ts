/**
 * The CheckpointStore over Deno KV. The claim is a real compare-and-set: an atomic commit that
 * checks the claim key does not exist yet, so exactly one of any number of racing resumers wins,
 * across processes sharing the database.
 *
 * Layout under the prefix: ['cp', run_id] the latest checkpoint (JSON text),
 * ['cl', run_id, checkpoint_id] a claim.
 */
import type { Checkpoint, CheckpointStore } from '../../src/host-storage.js';
import type { DenoKvKey, DenoKvLike } from './deno-kv-like.js';
import { commit, getJson, listKeys, setText } from './deno-kv-texts.js';

export interface DenoKvCheckpointStoreOptions {
  prefix: DenoKvKey;
  maxValueBytes: number;
  expireIn: number | undefined;
}

export class DenoKvCheckpointStore implements CheckpointStore {
  readonly #kv: DenoKvLike;
  readonly #options: DenoKvCheckpointStoreOptions;

  constructor(kv: DenoKvLike, options: DenoKvCheckpointStoreOptions) {
    this.#kv = kv;
    this.#options = options;
  }

  async save(checkpoint: Checkpoint): Promise<void> {
    const key = this.#key('cp', checkpoint.run_id);
    const stale = await listKeys(this.#kv, key);
    const atomic = this.#kv.atomic();
    for (const piece of stale) atomic.delete(piece);
    setText(atomic, key, JSON.stringify(checkpoint), this.#options.maxValueBytes, this.#options.expireIn);
    await commit(atomic);
  }

  async loadLatest(runId: string): Promise<Checkpoint | undefined> {
    return getJson<Checkpoint>(this.#kv, this.#key('cp', runId));
  }

  async delete(runId: string): Promise<void> {
    const doomed = [
      ...(await listKeys(this.#kv, this.#key('cp', runId))),
      this.#key('cp', runId),
      ...(await listKeys(this.#kv, this.#key('cl', runId))),
    ];
    const atomic = this.#kv.atomic();
    for (const key of doomed) atomic.delete(key);
    await commit(atomic);
  }

  async claim(runId: string, checkpointId: string): Promise<boolean> {
    const key = this.#key('cl', runId, checkpointId);
    const options = this.#options.expireIn === undefined ? undefined : { expireIn: this.#options.expireIn };
    return commit(this.#kv.atomic().check({ key, versionstamp: null }).set(key, Date.now(), options));
  }

  #key(...parts: DenoKvKey): DenoKvKey {
    return [...this.#options.prefix, ...parts];
  }
}
