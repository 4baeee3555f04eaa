/**
 * Event batches as stored values. A batch of events becomes NDJSON text, cut into pieces of at
 * most `maxBytes` UTF-8 bytes (never inside a character), so a trace of any length, and even one
 * huge event, fits a store's value limit. Reading joins the pieces of each complete batch back.
 */
import { splitUtf8, type AgentEvent } from '../../src/host-storage.js';

/** Serialises events as NDJSON and cuts the text into pieces of at most `maxBytes` bytes. */
export function splitEvents(events: AgentEvent[], maxBytes: number): string[] {
  return splitUtf8(events.map((event) => JSON.stringify(event)).join('\n') + '\n', maxBytes);
}

/** Parses the joined NDJSON text of one batch; blank lines are skipped. */
export function parseEvents(text: string): AgentEvent[] {
  const events: AgentEvent[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    events.push(JSON.parse(line) as AgentEvent);
  }
  return events;
}

/** Orders events by seq and drops repeated seqs (a batch re-written after a failed flush). */
export function orderEvents(events: AgentEvent[]): AgentEvent[] {
  const bySeq = new Map<number, AgentEvent>();
  for (const event of events) bySeq.set(event.seq, event);
  return [...bySeq.values()].sort((left, right) => left.seq - right.seq);
}
