/**
 * The TraceStore over Deno KV. Deno KV is strongly consistent and has no per-key write rate, so
 * records are written when put; events are buffered and written at `flush` (and before a final
 * record, so a run is never recorded as finished with its trace unwritten), one key per event
 * piece, in atomic commits sized under Deno KV's limits.
 *
 * Layout under the prefix (default `['tea']`):
 *   ['run', run_id]                          the run record (JSON text)
 *   ['ev', run_id, seq, piece]               a piece (≤ 60 KB) of one event's JSON
 *   ['ix', created_ms, run_id]               every run; listed in reverse: newest first
 *   ['ia', agent, created_ms, run_id]        the runs of one agent
 *   ['in', agent]                            the reviewer's insights (JSON text)
 */
import type {
  AgentEvent,
  Insight,
  ListRunsOptions,
  RetentionPolicy,
  RunPage,
  RunRecord,
  TraceStore,
} from '../../src/host-storage.js';
import type { DenoKvAtomic, DenoKvKey, DenoKvLike } from './deno-kv-like.js';
import { commit, getJson, guard, listKeys, setText, splitText } from './deno-kv-texts.js';
import { readEventsAfter } from './deno-kv-events.js';

export interface DenoKvTraceStoreOptions {
  prefix: DenoKvKey;
  maxValueBytes: number;
  expireIn: number | undefined;
}

/** Deno KV allows 1,000 mutations and 800 KiB per atomic commit; stay well inside. */
const COMMIT_MUTATIONS = 400;
const COMMIT_BYTES = 500_000;
const FINAL = new Set(['completed', 'failed', 'interrupted', 'cancelled']);

export class DenoKvTraceStore implements TraceStore {
  readonly #kv: DenoKvLike;
  readonly #options: DenoKvTraceStoreOptions;
  readonly #buffers = new Map<string, AgentEvent[]>();

  constructor(kv: DenoKvLike, options: DenoKvTraceStoreOptions) {
    this.#kv = kv;
    this.#options = options;
  }

  async appendEvents(runId: string, events: AgentEvent[]): Promise<void> {
    if (events.length === 0) return;
    const buffer = this.#buffers.get(runId) ?? [];
    buffer.push(...events.map((event) => JSON.parse(JSON.stringify(event)) as AgentEvent));
    this.#buffers.set(runId, buffer);
  }

  async flush(runId: string): Promise<void> {
    const buffer = this.#buffers.get(runId);
    if (buffer === undefined || buffer.length === 0) return;
    const events = buffer.slice();
    const writes: Array<[DenoKvKey, string]> = [];
    for (const event of events) {
      const pieces = splitText(JSON.stringify(event), this.#options.maxValueBytes);
      pieces.forEach((piece, index) => {
        writes.push([this.#key('ev', runId, event.seq, index), piece]);
      });
    }
    await this.#commitInGroups(
      writes.map(
        ([key, piece]) =>
          (atomic: DenoKvAtomic) =>
            atomic.set(key, piece, this.#setOptions()),
      ),
      writes.map(([, piece]) => piece.length * 3),
    );
    buffer.splice(0, events.length);
  }

  async readEvents(runId: string): Promise<AgentEvent[]> {
    const events = await readEventsAfter(this.#kv, this.#options.prefix, runId);
    for (const event of this.#buffers.get(runId) ?? []) events.push(JSON.parse(JSON.stringify(event)) as AgentEvent);
    const bySeq = new Map(events.map((event) => [event.seq, event]));
    return [...bySeq.values()].sort((left, right) => left.seq - right.seq);
  }

  async putRun(record: RunRecord): Promise<void> {
    if (FINAL.has(record.status)) await this.flush(record.run_id);
    const created = createdMillis(record.created_at);
    const atomic = this.#kv.atomic();
    setText(
      atomic,
      this.#key('run', record.run_id),
      JSON.stringify(record),
      this.#options.maxValueBytes,
      this.#options.expireIn,
    );
    atomic.set(this.#key('ix', created, record.run_id), record.agent, this.#setOptions());
    atomic.set(this.#key('ia', record.agent, created, record.run_id), true, this.#setOptions());
    await commit(atomic);
  }

  async getRun(runId: string): Promise<RunRecord | undefined> {
    return getJson<RunRecord>(this.#kv, this.#key('run', runId));
  }

  async listRuns(options: ListRunsOptions = {}): Promise<RunPage> {
    const limit = Math.max(1, Math.min(1000, options.limit ?? 50));
    const prefix = options.agent === undefined ? this.#key('ix') : this.#key('ia', options.agent);
    const listOptions: { limit: number; reverse: boolean; cursor?: string } = { limit: limit + 1, reverse: true };
    if (options.cursor !== undefined) listOptions.cursor = options.cursor;
    const runIds: string[] = [];
    let cursor: string | undefined;
    await guard('list', async () => {
      const iterator = this.#kv.list({ prefix }, listOptions);
      let next = await iterator.next();
      while (!next.done && runIds.length < limit) {
        runIds.push(String(next.value.key[next.value.key.length - 1]));
        cursor = iterator.cursor;
        next = await iterator.next();
      }
      // The list was asked for one entry more than the page: only when it came is there a next page.
      if (next.done === true) cursor = undefined;
    });
    const records = await Promise.all(runIds.map((runId) => this.getRun(runId)));
    const page: RunPage = { runs: records.filter((record): record is RunRecord => record !== undefined) };
    if (cursor !== undefined) page.cursor = cursor;
    return page;
  }

  async deleteRun(runId: string): Promise<void> {
    this.#buffers.delete(runId);
    const record = await this.getRun(runId);
    const doomed: DenoKvKey[] = [
      ...(await listKeys(this.#kv, this.#key('ev', runId))),
      ...(await listKeys(this.#kv, this.#key('run', runId))),
      this.#key('run', runId),
    ];
    if (record !== undefined) {
      const created = createdMillis(record.created_at);
      doomed.push(this.#key('ix', created, runId), this.#key('ia', record.agent, created, runId));
    }
    await this.#commitInGroups(
      doomed.map((key) => (atomic: DenoKvAtomic) => atomic.delete(key)),
      doomed.map(() => 100),
    );
  }

  async applyRetention(policy: RetentionPolicy): Promise<number> {
    const indexKeys = await listKeys(this.#kv, this.#key('ix'), { reverse: true });
    const now = Date.now();
    const doomed: string[] = [];
    for (const [position, key] of indexKeys.entries()) {
      const runId = String(key[key.length - 1]);
      if (policy.maxRuns !== undefined && position >= policy.maxRuns) doomed.push(runId);
      else if (policy.maxAgeMs !== undefined && Number(key[key.length - 2]) < now - policy.maxAgeMs) {
        const updated = Date.parse((await this.getRun(runId))?.updated_at ?? '');
        if (!Number.isFinite(updated) || updated < now - policy.maxAgeMs) doomed.push(runId);
      }
    }
    for (const runId of doomed) await this.deleteRun(runId);
    return doomed.length;
  }

  async getInsights(agent: string): Promise<Insight[]> {
    return (await getJson<Insight[]>(this.#kv, this.#key('in', agent))) ?? [];
  }

  async putInsights(agent: string, insights: Insight[]): Promise<void> {
    const stale = await listKeys(this.#kv, this.#key('in', agent));
    const atomic = this.#kv.atomic();
    for (const key of stale) atomic.delete(key);
    setText(
      atomic,
      this.#key('in', agent),
      JSON.stringify(insights),
      this.#options.maxValueBytes,
      this.#options.expireIn,
    );
    await commit(atomic);
  }

  #key(...parts: DenoKvKey): DenoKvKey {
    return [...this.#options.prefix, ...parts];
  }

  #setOptions(): { expireIn: number } | undefined {
    return this.#options.expireIn === undefined ? undefined : { expireIn: this.#options.expireIn };
  }

  /** Applies mutations in as few atomic commits as Deno KV's limits allow. */
  async #commitInGroups(mutations: Array<(atomic: DenoKvAtomic) => unknown>, sizes: number[]): Promise<void> {
    let atomic = this.#kv.atomic();
    let count = 0;
    let bytes = 0;
    for (const [index, mutation] of mutations.entries()) {
      if (count > 0 && (count >= COMMIT_MUTATIONS || bytes + sizes[index]! > COMMIT_BYTES)) {
        await commit(atomic);
        atomic = this.#kv.atomic();
        count = 0;
        bytes = 0;
      }
      mutation(atomic);
      count += 1;
      bytes += sizes[index]!;
    }
    if (count > 0) await commit(atomic);
  }
}

function createdMillis(isoTime: string): number {
  const millis = Date.parse(isoTime);
  return Number.isFinite(millis) ? millis : 0;
}
