/**
 * Follows a run's stored events as Server-Sent Events (inside its Durable Object): first every
 * event after the client's cursor, then each new one as it is written, until the run is no longer
 * running here and every event is sent. The cursor is the last seq sent, read back from SQLite on
 * every wake-up, so a follower that reconnects with `Last-Event-ID: <seq>` gets exactly the events
 * after it: none twice, none skipped, whatever it missed while away.
 *
 * A quiet run gets a comment line every `heartbeatMs`: workerd notices that a client has gone only
 * when it writes, and the write failing is what runs `onDisconnect`.
 */
import { httpError } from './error-status.js';
import type { AgentEvent } from '../src/core/events.js';
import type { Sanitizer } from '../src/events/outbound.js';
import { quoteText } from '../src/util/cut-text.js';

/** Where a follower reads a run's events: the object's SQLite, or a process's store and live buffer. */
export interface EventLog {
  /** Events with seq > `after`, in seq order (a page; an empty page means none yet). */
  eventsAfter(after: number): AgentEvent[] | Promise<AgentEvent[]>;
  /** Resolves true at the next event written (or the run's end), false after `ms` without one. */
  changed(ms: number): Promise<boolean>;
}

export interface FollowOptions {
  /** The last seq the client has (0: from the start). */
  after: number;
  /** True while more events may come (a run is executing in this object, or in another process). */
  live: () => boolean | Promise<boolean>;
  /** Stop after the first `done` event (a foreground start or resume answers one segment). */
  untilDone: boolean;
  heartbeatMs: number;
  sanitizer: Sanitizer;
  /** Called once when the client goes away before the end. */
  onDisconnect?: () => void;
}

const encoder = new TextEncoder();

function sseBlock(event: AgentEvent, sanitizer: Sanitizer): string {
  return `event: ${event.type}\ndata: ${sanitizer.text(JSON.stringify(event))}\nid: ${event.seq}\n\n`;
}

export function followResponse(log: EventLog, options: FollowOptions): Response {
  let closed = false;
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      let cursor = options.after;
      const write = (text: string) => {
        if (!closed) controller.enqueue(encoder.encode(text));
      };
      try {
        write(': following\n\n');
        for (;;) {
          // Read `live` before the rows: an event written after this read is caught next turn.
          const live = await options.live();
          const page = await log.eventsAfter(cursor);
          for (const event of page) {
            write(sseBlock(event, options.sanitizer));
            cursor = event.seq;
            if (options.untilDone && event.type === 'done') return;
          }
          if (closed) return;
          if (page.length > 0) continue;
          if (!live) return;
          const woken = await log.changed(options.heartbeatMs > 0 ? options.heartbeatMs : 60_000);
          if (!woken && options.heartbeatMs > 0) write(': keep-alive\n\n');
        }
      } finally {
        if (!closed) {
          closed = true;
          controller.close();
        }
      }
    },
    cancel() {
      if (closed) return;
      closed = true;
      options.onDisconnect?.();
    },
  });
  return new Response(stream, {
    headers: {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'x-accel-buffering': 'no',
    },
  });
}

/** The stored events after a seq as NDJSON (a snapshot, not a follow). */
export function ndjsonResponse(events: readonly AgentEvent[], sanitizer: Sanitizer): Response {
  const text = events.map((event) => sanitizer.text(JSON.stringify(event)) + '\n').join('');
  return new Response(text, { headers: { 'content-type': 'application/x-ndjson; charset=utf-8' } });
}

/**
 * The cursor a follower sends: `Last-Event-ID` first (a reconnecting EventSource), then `?after=`.
 * Anything but a seq (a non-negative integer) is INVALID_PARAMS, not read as 0: a client with a
 * broken cursor would otherwise be sent the whole run again.
 */
export function cursorOf(request: Request): number {
  const url = new URL(request.url);
  const header = request.headers.get('last-event-id');
  const raw = header ?? url.searchParams.get('after') ?? '0';
  if (!/^\d{1,15}$/.test(raw.trim())) {
    const field = header !== null ? 'Last-Event-ID' : 'after';
    throw httpError('INVALID_PARAMS', `${field} must be an event seq (an integer ≥ 0), got ${quoteText(raw, 40)}`, {
      field,
    });
  }
  return Number(raw.trim());
}
