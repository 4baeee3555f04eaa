/**
 * The per-run trace cap (docs/spec.md#7-storage-traces-and-checkpoints): after so many events or
 * bytes, a run's trace keeps one `log` notice saying it was truncated, then only `error` and `done`.
 */
import type { AgentEvent, EventType } from '../core/events.js';
import { utf8Length } from './event-size.js';

export const DEFAULT_MAX_RUN_EVENTS = 10_000;
export const DEFAULT_MAX_RUN_BYTES = 8 * 1024 * 1024;

export interface RunEventCapOptions {
  /** Events kept per run before truncation; default 10,000. */
  maxEvents?: number;
  /** Bytes kept per run before truncation; default 8 MiB. */
  maxBytes?: number;
  /** Event types still kept after the cap; default `error` and `done`. */
  alwaysKeep?: readonly EventType[];
}

/** Per-run trace cap: decides, event by event, what a run's trace keeps. */
export interface RunEventCap {
  /**
   * The event to store for `event`: the event itself; one `log` event saying the trace was
   * truncated (the first time the cap is passed, taking that event's seq); or undefined (dropped).
   */
  admit(event: AgentEvent, bytes?: number): AgentEvent | undefined;
  /** True once events have been dropped. */
  readonly truncated: boolean;
}

/**
 * Creates the per-run cap. After `maxEvents` events or `maxBytes` bytes, the trace gets one `log`
 * event saying it was truncated, then only the `alwaysKeep` types (`error`, `done`).
 *
 * @example
 * const cap = createRunEventCap();
 * const { event: safe, bytes } = sanitizeEventWithSize(event, { secrets });
 * const kept = cap.admit(safe, bytes);
 * if (kept) buffer.push(kept);
 */
export function createRunEventCap(options: RunEventCapOptions = {}): RunEventCap {
  const maxEvents = options.maxEvents ?? DEFAULT_MAX_RUN_EVENTS;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_RUN_BYTES;
  const alwaysKeep = new Set<EventType>(options.alwaysKeep ?? ['error', 'done']);
  let count = 0;
  let totalBytes = 0;
  let truncated = false;
  return {
    get truncated() {
      return truncated;
    },
    admit(event: AgentEvent, bytes?: number): AgentEvent | undefined {
      const size = bytes ?? utf8Length(JSON.stringify(event));
      if (alwaysKeep.has(event.type)) {
        count++;
        totalBytes += size;
        return event;
      }
      if (truncated) return undefined;
      if (count + 1 <= maxEvents && totalBytes + size <= maxBytes) {
        count++;
        totalBytes += size;
        return event;
      }
      truncated = true;
      const notice: AgentEvent = {
        type: 'log',
        run_id: event.run_id,
        seq: event.seq,
        ts: event.ts,
        data: {
          source: 'trace',
          level: 'warn',
          message: `trace truncated: the run passed the cap of ${maxEvents} events or ${maxBytes} bytes; later events are not stored except ${[...alwaysKeep].join(', ')}`,
          truncated: true,
          dropped_from_seq: event.seq,
          max_events: maxEvents,
          max_bytes: maxBytes,
        },
      };
      if (event.node !== undefined) notice.node = event.node;
      return notice;
    },
  };
}
