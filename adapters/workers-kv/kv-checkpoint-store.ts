/**
 * The CheckpointStore over Workers KV: the latest checkpoint of a run under one key, and a claim
 * so that two resumes of the same checkpoint do not both run it.
 *
 * KV has no compare-and-set. A claim reads the claim key, writes a random token if it is absent,
 * waits `claimSettleMs` and reads the key back: the caller whose token is there wins. Within one
 * location (one data centre, where concurrent requests for a run usually land) KV reads its own
 * writes, so exactly one of two racing claims wins. Across locations two claims within KV's
 * propagation delay (up to about 60 s) can both win; the HTTP app adds an in-isolate lock, and a
 * deployment that needs a hard guarantee across the world should put claims in a Durable Object.
 */
import { sleep, type Checkpoint, type CheckpointStore } from '../../src/host-storage.js';
import { keyPart, runKeys } from './kv-keys.js';
import { kvFailure, type KvWriter } from './kv-writer.js';
import type { KVNamespaceLike } from './kv-namespace-like.js';

export interface KvCheckpointStoreOptions {
  prefix: string;
  /** Milliseconds between writing a claim and reading it back (default 50). */
  claimSettleMs: number;
  expirationTtl: number | undefined;
}

export class KvCheckpointStore implements CheckpointStore {
  readonly #writer: KvWriter;
  readonly #namespace: KVNamespaceLike;
  readonly #options: KvCheckpointStoreOptions;
  readonly #claiming = new Set<string>();

  constructor(writer: KvWriter, namespace: KVNamespaceLike, options: KvCheckpointStoreOptions) {
    this.#writer = writer;
    this.#namespace = namespace;
    this.#options = options;
  }

  async save(checkpoint: Checkpoint): Promise<void> {
    const keys = runKeys(this.#options.prefix, await keyPart(checkpoint.run_id));
    await this.#writer.put(keys.checkpoint, JSON.stringify(checkpoint));
  }

  async loadLatest(runId: string): Promise<Checkpoint | undefined> {
    return this.#writer.getJson<Checkpoint>(runKeys(this.#options.prefix, await keyPart(runId)).checkpoint);
  }

  async delete(runId: string): Promise<void> {
    const keys = runKeys(this.#options.prefix, await keyPart(runId));
    const claims = await this.#writer.listAll(keys.claimPrefix);
    await Promise.all([...claims, keys.checkpoint].map((name) => this.#writer.delete(name)));
  }

  async claim(runId: string, checkpointId: string): Promise<boolean> {
    const key = runKeys(this.#options.prefix, await keyPart(runId)).claimPrefix + (await keyPart(checkpointId));
    if (this.#claiming.has(key)) return false;
    this.#claiming.add(key);
    try {
      if ((await this.#writer.get(key)) !== null) return false;
      const token = crypto.randomUUID();
      // Written directly, not through the paced writer: a claim key is written once, and a paced
      // second write would land after the first claimer had already read its own token back.
      try {
        const options = this.#options.expirationTtl === undefined ? {} : { expirationTtl: this.#options.expirationTtl };
        await this.#namespace.put(key, token, options);
      } catch (error) {
        throw kvFailure('put', key, error);
      }
      await sleep(this.#options.claimSettleMs);
      return (await this.#writer.get(key)) === token;
    } finally {
      this.#claiming.delete(key);
    }
  }
}
