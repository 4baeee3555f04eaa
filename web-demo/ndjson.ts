/**
 * Export and import of a run's events as NDJSON (one JSON event per line), the format of
 * `GET /runs/:id/events` and `tea-edge run --stream`.
 */
import type { AgentEvent } from '../src/core/events.js';
import { upgradeEvent } from '../src/events/upgrade-event.js';

/** One event per line, newline-terminated. */
export function toNdjson(events: AgentEvent[]): string {
  return events.map((event) => JSON.stringify(event)).join('\n') + (events.length > 0 ? '\n' : '');
}

export type ParsedNdjson = { ok: true; events: AgentEvent[]; run_id: string } | { ok: false; error: string };

/**
 * Parses NDJSON events of one run. Blank lines are skipped; a line that is not an event, events
 * of several runs, or no events at all is an error naming the line.
 */
export function parseNdjson(text: string): ParsedNdjson {
  const events: AgentEvent[] = [];
  const lines = text.split(/\r?\n/);
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!.trim();
    if (line === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return { ok: false, error: `line ${index + 1}: not JSON` };
    }
    if (!isEvent(value)) return { ok: false, error: `line ${index + 1}: not an event (needs type, run_id, seq, data)` };
    if (events.length > 0 && value.run_id !== events[0]!.run_id) {
      return { ok: false, error: `line ${index + 1}: events of more than one run` };
    }
    // A file exported by an older version may use older field names: upgraded once, here.
    events.push(upgradeEvent(value));
  }
  if (events.length === 0) return { ok: false, error: 'no events in the file' };
  events.sort((left, right) => left.seq - right.seq);
  return { ok: true, events, run_id: events[0]!.run_id };
}

function isEvent(value: unknown): value is AgentEvent {
  if (typeof value !== 'object' || value === null) return false;
  const event = value as Record<string, unknown>;
  return (
    typeof event.type === 'string' &&
    typeof event.run_id === 'string' &&
    typeof event.seq === 'number' &&
    typeof event.data === 'object' &&
    event.data !== null
  );
}
