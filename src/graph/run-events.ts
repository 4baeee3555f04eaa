/**
 * The run's event numbering and sanitising: every event gets the run id, the next `seq`, an
 * ISO-8601 UTC timestamp, and is made safe (secrets redacted, size capped, inert JSON; see
 * src/events/redact.ts) before anyone sees it. Each event goes to the trace writer and to the
 * run's event channel (what a host iterates).
 *
 * This is the engine's hot path: one sanitiser is prepared per run, and the timestamp string is
 * formatted once per millisecond.
 */
import type { AgentEvent, EventData, EventType, SubRunFrame } from '../core/events.js';
import { EVENT_TYPES } from '../core/events.js';
import {
  createEventMaker,
  createEventSanitizer,
  type EventMaker,
  type SanitizedEvent,
  type SizeMemo,
} from '../events/redact.js';
import { freezeJson } from '../util/frozen-json.js';
import { createEventChannel, type EventChannel } from './event-channel.js';
import type { TraceWriter } from './trace-writer.js';

export class RunEvents {
  readonly channel: EventChannel<AgentEvent> = createEventChannel();
  private readonly makeSafe: EventMaker;
  private readonly sanitizeWhole: ReturnType<typeof createEventSanitizer>;
  private stampMs = -1;
  private stampIso = '';
  /**
   * Sizes measured for a node_end's summary, for the run's done to reuse (its state holds the same
   * values). Dropped at every node_start and whenever anything else may change the state
   * (`forgetSizes`), so a size is only reused for a value nothing has touched since.
   */
  private sizes: SizeMemo = new WeakMap();

  constructor(
    private readonly runId: string,
    /** The last seq used (0 for a new run; the checkpoint's for a resumed one). */
    private seq: number,
    secrets: readonly string[],
    private readonly now: () => number,
    private readonly trace: TraceWriter,
  ) {
    // Sizes are upper bounds kept while copying (exact only for events near the cap).
    this.makeSafe = createEventMaker(EVENT_TYPES, { secrets }, false);
    this.sanitizeWhole = createEventSanitizer({ secrets });
  }

  /** The seq of the last event made. */
  get lastSeq(): number {
    return this.seq;
  }

  /** Makes, stores and publishes one event. */
  emit<T extends EventType>(type: T, data: EventData<T>, node?: string, subRun?: SubRunFrame[]): void {
    const { event, bytes } = this.make(type, data, node, subRun);
    this.trace.keep(event, bytes);
    this.channel.push(event);
  }

  /**
   * A numbered, timestamped, sanitised event, not yet stored or published (the run's `done`). It is
   * frozen: an event is a value, the same one for the trace and every reader of the run (the
   * trace writer seals each batch of them for the store).
   */
  make<T extends EventType>(type: T, data: EventData<T>, node?: string, subRun?: SubRunFrame[]): SanitizedEvent {
    const made = this.makeUnfrozen(type, data, node, subRun);
    freezeJson(made.event);
    return made;
  }

  /** Drops the remembered sizes: code that may change the state ran (a node, a run-end hook). */
  forgetSizes(): void {
    this.sizes = new WeakMap();
  }

  private makeUnfrozen<T extends EventType>(
    type: T,
    data: EventData<T>,
    node?: string,
    subRun?: SubRunFrame[],
  ): SanitizedEvent {
    if (type === 'node_start') this.forgetSizes();
    // The parts go to the maker separately: only `data` needs walking (events/redact.ts).
    if (subRun === undefined || subRun.length === 0) {
      const sizes = type === 'node_end' || type === 'done' ? this.sizes : undefined;
      return this.makeSafe(type, this.runId, ++this.seq, this.timestamp(), data, node, sizes);
    }
    // A sub-run's event (agent.* over an agent file) carries its frames: the general sanitiser
    // walks the whole event, frames included. TypeScript cannot relate a generic T to its member
    // of the union: emit's signature checks the fields.
    const event = { type, run_id: this.runId, seq: ++this.seq, ts: this.timestamp(), data } as AgentEvent;
    if (node !== undefined) event.node = node;
    event.sub_run = subRun;
    return this.sanitizeWhole(event, false);
  }

  /** Publishes an event made with `make`, then ends the stream. */
  close(last: AgentEvent): void {
    this.channel.push(last);
    this.channel.close();
  }

  private timestamp(): string {
    const ms = this.now();
    if (ms !== this.stampMs) {
      this.stampMs = ms;
      this.stampIso = new Date(ms).toISOString();
    }
    return this.stampIso;
  }
}
