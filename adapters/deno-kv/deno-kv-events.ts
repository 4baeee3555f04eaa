/**
 * A run's events in Deno KV, one key per piece of an event's JSON: `[...prefix, 'ev', run_id, seq,
 * piece]` (the trace store's layout, deno-kv-trace-store.ts). Read from any seq on, so a follower
 * in another process reads exactly the events after its cursor.
 */
import type { AgentEvent } from '../../src/host-storage.js';
import type { DenoKvKey, DenoKvLike } from './deno-kv-like.js';
import { guard } from './deno-kv-texts.js';

export function eventsPrefix(prefix: DenoKvKey, runId: string): DenoKvKey {
  return [...prefix, 'ev', runId];
}

/** The events of a run with seq > `after`, in seq order (every piece of each). */
export async function readEventsAfter(
  kv: DenoKvLike,
  prefix: DenoKvKey,
  runId: string,
  after = 0,
): Promise<AgentEvent[]> {
  const eventPrefix = eventsPrefix(prefix, runId);
  return guard('list', async () => {
    // Built inside the guarded call, so nothing half-read survives a failed listing.
    const pieces = new Map<number, string[]>();
    for await (const entry of kv.list<string>({ prefix: eventPrefix, start: [...eventPrefix, after + 1] })) {
      const seq = Number(entry.key[entry.key.length - 2]);
      pieces.set(seq, [...(pieces.get(seq) ?? []), entry.value]);
    }
    return [...pieces.entries()]
      .sort(([left], [right]) => left - right)
      .map(([, parts]) => JSON.parse(parts.join('')) as AgentEvent);
  });
}

/** The highest seq stored for a run (0: none). */
export async function lastEventSeq(kv: DenoKvLike, prefix: DenoKvKey, runId: string): Promise<number> {
  return guard('list', async () => {
    for await (const entry of kv.list({ prefix: eventsPrefix(prefix, runId) }, { reverse: true, limit: 1 }))
      return Number(entry.key[entry.key.length - 2]);
    return 0;
  });
}
