/**
 * Who executes a Deno run: a lease in Deno KV, `[...prefix, 'owner', run_id]` =
 * `{process, until}`, taken and renewed only through atomic checks on its versionstamp, so of any
 * number of processes sharing the database exactly one holds a run at a time:
 *
 *   take a new run or a paused one   check that no lease exists (a second resume finds one: 409)
 *   take over a dead process's run   check the versionstamp of the expired lease it read
 *   renew (every lease/3)            check the versionstamp it holds; a failed check means another
 *                                    process took the run over, and this one must stop writing
 *   release (the run stopped)        the same check, then delete
 *
 * A run queued for the background (kv.enqueue) has a lease with `process: null` that expires
 * after a grace period, so that if the queue never delivers it, a sweep takes it.
 */
import type { DenoKvKey, DenoKvLike } from '../../adapters/deno-kv/deno-kv-like.js';
import { commit, commitStamped, guard } from '../../adapters/deno-kv/deno-kv-texts.js';

export interface LeaseValue {
  /** The process executing the run (null: queued, not taken yet). */
  process: string | null;
  /** Epoch ms after which the lease counts as abandoned. */
  until: number;
  /** Set when its process stopped on purpose and gave the run up (not a death). */
  handedOver?: boolean;
}

export interface Lease {
  runId: string;
  versionstamp: string;
}

export interface LeaseEntry {
  runId: string;
  value: LeaseValue;
  versionstamp: string;
}

export class DenoRunLeases {
  constructor(
    private readonly kv: DenoKvLike,
    private readonly prefix: DenoKvKey,
    readonly process: string,
    readonly leaseMs: number,
  ) {}

  key(runId: string): DenoKvKey {
    return [...this.prefix, 'owner', runId];
  }

  /** Takes a run nobody holds; `also` adds writes to the same commit. Undefined when it is held. */
  async takeFree(
    runId: string,
    also?: (atomic: ReturnType<DenoKvLike['atomic']>) => void,
    value: LeaseValue = this.mine(),
  ): Promise<Lease | undefined> {
    const atomic = this.kv
      .atomic()
      .check({ key: this.key(runId), versionstamp: null })
      .set(this.key(runId), value);
    also?.(atomic);
    const versionstamp = await commitStamped(atomic);
    return versionstamp === undefined ? undefined : { runId, versionstamp };
  }

  /** Takes over a lease read earlier (expired, or queued); undefined when someone else moved first. */
  async takeOver(entry: LeaseEntry): Promise<Lease | undefined> {
    return this.replace({ runId: entry.runId, versionstamp: entry.versionstamp });
  }

  /** Extends a lease held; undefined when it was lost. */
  renew(lease: Lease): Promise<Lease | undefined> {
    return this.replace(lease);
  }

  /** Marks a lease held as abandoned now (this process stops): the next sweep anywhere takes the run. */
  async expire(lease: Lease): Promise<boolean> {
    const atomic = this.kv
      .atomic()
      .check({ key: this.key(lease.runId), versionstamp: lease.versionstamp })
      .set(this.key(lease.runId), { process: this.process, until: 0, handedOver: true } satisfies LeaseValue);
    return (await commitStamped(atomic)) !== undefined;
  }

  /** Ends a lease held (and deletes `also` keys in the same commit); false when it was lost. */
  async release(lease: Lease, also: readonly DenoKvKey[] = []): Promise<boolean> {
    const atomic = this.kv
      .atomic()
      .check({ key: this.key(lease.runId), versionstamp: lease.versionstamp })
      .delete(this.key(lease.runId));
    for (const key of also) atomic.delete(key);
    return commit(atomic);
  }

  async read(runId: string): Promise<LeaseEntry | undefined> {
    const entry = await guard('get', () => this.kv.get<LeaseValue>(this.key(runId)));
    return entry.value === null || entry.versionstamp === null
      ? undefined
      : { runId, value: entry.value, versionstamp: entry.versionstamp };
  }

  /** Every lease (runs running or queued, in any process). */
  async all(): Promise<LeaseEntry[]> {
    return guard('list', async () => {
      const entries: LeaseEntry[] = [];
      for await (const entry of this.kv.list<LeaseValue>({ prefix: [...this.prefix, 'owner'] })) {
        entries.push({
          runId: String(entry.key[entry.key.length - 1]),
          value: entry.value,
          versionstamp: entry.versionstamp,
        });
      }
      return entries;
    });
  }

  /** A queued run's lease: no process, abandoned after `graceMs` if the queue never delivers it. */
  queued(graceMs: number): LeaseValue {
    return { process: null, until: Date.now() + graceMs };
  }

  private mine(): LeaseValue {
    return { process: this.process, until: Date.now() + this.leaseMs };
  }

  private async replace(lease: Lease): Promise<Lease | undefined> {
    const atomic = this.kv
      .atomic()
      .check({ key: this.key(lease.runId), versionstamp: lease.versionstamp })
      .set(this.key(lease.runId), this.mine());
    const versionstamp = await commitStamped(atomic);
    return versionstamp === undefined ? undefined : { runId: lease.runId, versionstamp };
  }
}
