/**
 * The `reasoning_trace` every reasoning action returns: a list of `{step, timestamp, ...}` entries
 * (timestamp in epoch seconds, as TEA's float), JSON-serialisable, capped in length so a long loop
 * cannot grow it without bound.
 */
import { cutText } from '../util/cut-text.js';

export interface TraceEntry {
  step: string | number;
  timestamp: number;
  [field: string]: unknown;
}

/** Entries kept per action call; later entries replace a single truncation marker. */
const MAX_ENTRIES = 500;

export interface ReasoningTrace {
  readonly entries: TraceEntry[];
  /** Appends an entry; `fields` may not override `step` or `timestamp`. */
  add(step: string | number, fields?: Record<string, unknown>): void;
}

/**
 * Creates an empty trace, or one continuing `entries` (a resumed ReAct loop).
 *
 * @example const trace = createReasoningTrace(); trace.add('cot_request', {problem});
 */
export function createReasoningTrace(entries: TraceEntry[] = []): ReasoningTrace {
  const list = [...entries];
  let dropped = 0;
  return {
    entries: list,
    add(step, fields = {}) {
      if (list.length >= MAX_ENTRIES) {
        dropped++;
        const marker = { step: 'trace_truncated', timestamp: nowSeconds(), dropped_entries: dropped };
        list[list.length - 1] = marker;
        return;
      }
      list.push({ ...fields, step, timestamp: nowSeconds() });
    },
  };
}

/** Epoch seconds with milliseconds. */
export function nowSeconds(): number {
  return Date.now() / 1000;
}

/** Shortens a value's text form for a trace or an observation, with the cut mark saying how much was cut. */
export function truncateText(text: string, limit: number): string {
  return cutText(text, limit);
}
