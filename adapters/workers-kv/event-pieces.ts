/**
 * Event batches as stored values. A batch of events becomes NDJSON text, cut into pieces of at
 * most `maxBytes` UTF-8 bytes (never inside a character), so a trace of any length, and even one
 * huge event, fits a store's value limit. Reading joins the pieces of each complete batch back.
 */
import type { AgentEvent } from '../../src/events/event.js';

/** Serialises events as NDJSON and cuts the text into pieces of at most `maxBytes` bytes. */
export function splitEvents(events: AgentEvent[], maxBytes: number): string[] {
  const text = events.map((event) => JSON.stringify(event)).join('\n') + '\n';
  const bytes = new TextEncoder().encode(text);
  if (bytes.length <= maxBytes) return [text];
  const decoder = new TextDecoder();
  const pieces: string[] = [];
  let start = 0;
  while (start < bytes.length) {
    let end = Math.min(start + maxBytes, bytes.length);
    // Back off to a character boundary: UTF-8 continuation bytes look like 0b10xxxxxx.
    while (end < bytes.length && end > start && (bytes[end]! & 0xc0) === 0x80) end -= 1;
    pieces.push(decoder.decode(bytes.subarray(start, end)));
    start = end;
  }
  return pieces;
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
