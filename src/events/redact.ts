/**
 * What happens to an event before it is stored (docs/spec.md#7-storage-traces-and-checkpoints): secrets redacted, size capped, inert
 * JSON. `sanitizeEvent` makes one event safe to keep; `createRunEventCap` caps a whole run's
 * trace. The engine calls both before appending to a TraceStore; stores then keep what they get.
 *
 * Redaction: every configured secret value (4 characters or more, so a short value cannot erase
 * ordinary text) is replaced wherever it appears in a string or a key name, `Bearer`/`Basic`
 * credentials in text are masked, and the value of any key named like a credential (`authorization`, `api-key`,
 * `x-api-key`, `api_key`, `apiKey`, …, case-insensitive; also `[name, value]` header pairs) becomes
 * `[REDACTED]`.
 *
 * Inert JSON: JSON semantics (`undefined` and functions dropped, non-finite numbers null, Dates
 * through `toJSON`), BigInt as a decimal string, an Error as `{name, message}`, cycles as
 * `"[circular]"`, nesting past `maxDepth` as `"[depth limit]"`, keys `__proto__`, `constructor` and
 * `prototype` dropped.
 *
 * Size: an event larger than `maxEventBytes` (UTF-8 of its JSON, default 64 KiB) has each field of
 * `data` too large on its own replaced by `{truncated: true, original_bytes, preview}` (the other
 * fields kept), then its longest strings cut, each ending in `…[truncated N bytes]`; if that is not
 * enough, `data` as a whole becomes the summary. The result is always valid JSON.
 */
import type { AgentEvent, EventType, TruncatedEventData } from '../core/events.js';
import { hasPlainPrototype, isPlainObject } from '../util/plain-object.js';
import {
  createContext,
  createEventContext,
  DEFAULT_MAX_EVENT_BYTES,
  redactString,
  resetContext,
  stringBound,
  type CopyContext,
  type SanitizeOptions,
  type SizeMemo,
} from './copy-context.js';
import { capEvent, summarised, truncatedSummary, utf8Length, type SanitizedEvent } from './event-size.js';
import { sanitizedBytes } from './sanitized-size.js';
import { walkValue, type WalkConsumer } from './sanitize-walk.js';

export { DEFAULT_MAX_EVENT_BYTES, REDACTED, redactText, type SanitizeOptions, type SizeMemo } from './copy-context.js';
export { jsonPrefix, jsonStringBytes, utf8Length, type SanitizedEvent } from './event-size.js';
export {
  createRunEventCap,
  DEFAULT_MAX_RUN_BYTES,
  DEFAULT_MAX_RUN_EVENTS,
  type RunEventCap,
  type RunEventCapOptions,
} from './run-event-cap.js';

/**
 * Returns a redacted, size-capped, inert copy of an event; the input is not changed.
 *
 * @example
 * const safe = sanitizeEvent(event, { secrets: [apiKey] });
 * await traceStore.appendEvents(runId, [safe]);
 */
export function sanitizeEvent(event: AgentEvent, options: SanitizeOptions = {}): AgentEvent {
  return sanitize(event, options, false).event;
}

/**
 * `sanitizeEvent`, also returning the byte size (for `RunEventCap.admit`). With `exact: false` the
 * size is an upper bound kept while copying (no serialisation), which is what the engine uses.
 */
export function sanitizeEventWithSize(event: AgentEvent, options: SanitizeOptions = {}, exact = true): SanitizedEvent {
  return sanitize(event, options, exact);
}

/**
 * `sanitizeEventWithSize` for many events with the same options: the secrets, key set and key
 * verdicts are prepared once (the engine makes one per run; events are its hot path).
 */
export function createEventSanitizer(
  options: SanitizeOptions = {},
): (event: AgentEvent, exact?: boolean) => SanitizedEvent {
  const context = createEventContext(options);
  return (event, exact = true) => {
    resetContext(context);
    return sanitizeWith(event, options, exact, context);
  };
}

/** Makes a run's event from its parts, sanitised: what `createEventSanitizer` gives for the assembled event. */
export type EventMaker = (
  type: EventType,
  runId: string,
  seq: number,
  ts: string,
  data: unknown,
  node: string | undefined,
  sizes?: SizeMemo,
) => SanitizedEvent;

/** The envelope's key names, in the order events are made with. */
const ENVELOPE_KEYS = ['type', 'run_id', 'seq', 'ts', 'data', 'node'];
/** Envelope strings kept redacted per maker (run ids and node names repeat all run long). */
const MAX_ENVELOPE_TEXTS = 256;

/**
 * The engine's event maker (one per run). An event's envelope is the engine's own: type names and
 * key names that no secret occurs in (checked once here; else every event takes the general
 * path), a number and three strings. So only the strings are redacted (`run_id` and `node` once
 * each) and only `data` is walked; the result, its key order and its size bound are those of
 * `createEventSanitizer(options)(event, exact)` (a test compares the two).
 */
export function createEventMaker(
  eventTypes: readonly string[],
  options: SanitizeOptions = {},
  exact = false,
): EventMaker {
  const sanitizeEvent = createEventSanitizer(options);
  const context = createEventContext(options);
  const general: EventMaker = (type, runId, seq, ts, data, node) => {
    const event = { type, run_id: runId, seq, ts, data } as AgentEvent;
    if (node !== undefined) event.node = node;
    return sanitizeEvent(event, exact);
  };
  if (
    context.maxDepth <= 1 ||
    context.secrets.some((secret) => [...ENVELOPE_KEYS, ...eventTypes].some((name) => name.includes(secret)))
  )
    return general;
  const knownTypes = new Set(eventTypes);
  const texts = new Map<string, string>();
  const redacted = (text: string): string => {
    let clean = texts.get(text);
    if (clean === undefined) {
      clean = redactString(text, context);
      if (texts.size < MAX_ENVELOPE_TEXTS) texts.set(text, clean);
    }
    return clean;
  };
  // What the keys and the object add to the bound (see COPY's startFields and field).
  const keyBound = (key: string) => stringBound(key) + 2;
  const fixedBound =
    2 + keyBound('type') + keyBound('run_id') + keyBound('seq') + 25 + keyBound('ts') + keyBound('data');
  return (type, runId, seq, ts, data, node, sizes) => {
    if (!isPlainObject(data) || !knownTypes.has(type)) return general(type, runId, seq, ts, data, node);
    resetContext(context);
    context.sizeMemo = sizes;
    const copied = copyValue(data, 1, context);
    if (!isPlainObject(copied)) return general(type, runId, seq, ts, data, node);
    const cleanType = redacted(type) as EventType;
    const cleanRunId = redacted(runId);
    const cleanTs = redactString(ts, context);
    context.sizeBound += fixedBound + stringBound(cleanType) + stringBound(cleanRunId) + stringBound(cleanTs);
    const event = {
      type: cleanType,
      run_id: cleanRunId,
      seq: Number.isFinite(seq) ? seq : null,
      ts: cleanTs,
      data: copied,
    } as AgentEvent;
    if (node !== undefined) {
      event.node = redacted(node);
      context.sizeBound += keyBound('node') + stringBound(event.node);
    }
    if (context.floor > context.stopAt) {
      const original = { type, run_id: runId, seq, ts, data } as AgentEvent;
      if (node !== undefined) original.node = node;
      return stoppedEarly(event, original, options, context);
    }
    if (context.summaries > 0) return withSummarisedFields(event, context);
    return measured(event, options, exact, context);
  };
}

function sanitize(event: AgentEvent, options: SanitizeOptions, measure: boolean): SanitizedEvent {
  return sanitizeWith(event, options, measure, createEventContext(options));
}

function sanitizeWith(
  event: AgentEvent,
  options: SanitizeOptions,
  measure: boolean,
  context: CopyContext,
): SanitizedEvent {
  const copy = copyValue(event, 0, context) as AgentEvent;
  if (context.floor > context.stopAt) {
    // The copy stopped inside `data` (or later): the envelope is copied again, whole, around it.
    const stopAt = context.stopAt;
    context.stopAt = Infinity;
    const envelope = copyValue({ ...event, data: null }, 0, context) as AgentEvent;
    context.stopAt = stopAt;
    return stoppedEarly({ ...envelope, data: copy.data ?? {} } as AgentEvent, event, options, context);
  }
  if (!isPlainObject(copy.data)) copy.data = {};
  if (context.summaries > 0) return withSummarisedFields(copy, context);
  return measured(copy, options, measure, context);
}

/**
 * An event some fields of which were too large on their own and are summaries now: its exact
 * size, cut further to the cap if the rest is still too large (a summary of it all then names the
 * size the data had before).
 */
function withSummarisedFields(event: AgentEvent, context: CopyContext): SanitizedEvent {
  const bytes = utf8Length(JSON.stringify(event));
  return bytes <= context.maxBytes
    ? { event, bytes }
    : capEvent(event, bytes, context.maxBytes, bytes + context.grownBy);
}

/**
 * An event whose copy stopped early (`stopAt`) with no single field to blame (a field too large
 * on its own is summarised where it is, see `fieldDepth`): what is not string content already
 * passes the cap, so no cutting of strings can make it fit and `data` becomes the summary. Its
 * exact size is measured on the original without copying the rest; the preview comes from the
 * prefix copy in `partial`.
 */
function stoppedEarly(
  partial: AgentEvent,
  original: AgentEvent,
  options: SanitizeOptions,
  context: CopyContext,
): SanitizedEvent {
  if (context.ancestors.length !== 0) context.ancestors.length = 0;
  const bytes = sanitizedBytes(original, 0, context) ?? 0;
  return summarised(partial, partial.data, bytes, options.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES);
}

/** A sanitised copy with its size, cut to the cap when it is larger. */
function measured(copy: AgentEvent, options: SanitizeOptions, measure: boolean, context: CopyContext): SanitizedEvent {
  const maxBytes = options.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES;
  // Most events are far below the cap: the bound kept while copying proves it without serialising.
  if (!measure && context.sizeBound <= maxBytes) return { event: copy, bytes: context.sizeBound };
  const bytes = utf8Length(JSON.stringify(copy));
  if (bytes <= maxBytes) return { event: copy, bytes };
  return capEvent(copy, bytes, maxBytes);
}

/**
 * A redacted, inert copy of any value (for error details, state snapshots). With `share`, the
 * parts that need no change are not copied but shared with `value` (the value itself when nothing
 * changes): for a value its owner is done with, such as a finished run's result.
 */
export function sanitizeValue(value: unknown, options: SanitizeOptions = {}, share = false): unknown {
  const context = createContext(options);
  context.share = share;
  return copyValue(value, 0, context);
}

/** A sanitised copy of `value` at `depth` (0 for a whole event), kept within the bounds in `context`. */
function copyValue(value: unknown, depth: number, context: CopyContext): unknown {
  return walkValue(value, depth, context, COPY);
}

/** While sharing (`context.share`), undefined until the first part that changes. */
type Copying = unknown[] | Record<string, unknown> | undefined;

/**
 * Builds the copy, keeping `sizeBound` (an upper bound of its JSON size: a string's at most 6
 * bytes per unit, a number's 25) and `floor` (a lower bound of what is not string content).
 */
const COPY: WalkConsumer<unknown, Copying> = {
  stops: true,
  string(text, context) {
    context.sizeBound += stringBound(text);
    context.floor += 2;
    return text;
  },
  number(value, context) {
    context.sizeBound += 25;
    context.floor += 1;
    return value;
  },
  literal(value, context) {
    context.sizeBound += 6;
    context.floor += 4;
    return value;
  },
  recall: () => undefined,
  remember: () => undefined,
  startArray(source, context) {
    context.sizeBound += 2;
    context.floor += 2;
    // Sharing, the copy starts at the first item that changes (the items before are the same).
    return context.share ? undefined : new Array<unknown>(source.length);
  },
  item(copying, index, copied, original, source, context) {
    context.sizeBound += 1;
    if (index > 0) context.floor += 1;
    let result = copying as unknown[] | undefined;
    if (result === undefined) {
      if (copied === original) return undefined;
      result = source.slice(0, index);
    }
    result[index] = copied;
    return result;
  },
  endArray(copying, count, source) {
    const result = copying as unknown[] | undefined;
    if (result === undefined) return source;
    if (result.length > count) result.length = count;
    return result;
  },
  startFields(source, context) {
    context.sizeBound += 2;
    context.floor += 2;
    // Sharing, a plain object's copy starts at the first field that changes (see sharedPrefix).
    return context.share && hasPlainPrototype(source) ? undefined : {};
  },
  field(copying, keys, index, name, copied, original, source, context) {
    context.sizeBound += stringBound(name) + 2;
    context.floor += name.length + 3;
    let result = copying as Record<string, unknown> | undefined;
    if (result === undefined) {
      if (copied === original && name === keys[index]) return undefined;
      result = sharedPrefix(source, keys, index);
    }
    result[name] = copied;
    return result;
  },
  omit: (copying, keys, index, source) => copying ?? sharedPrefix(source, keys, index),
  endFields: (copying, source) => copying ?? source,
  tooLarge: summariseField,
};

/** A new object with the first `count` fields of `source`: the ones a sharing copy found unchanged. */
function sharedPrefix(source: object, keys: readonly string[], count: number): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (let index = 0; index < count; index++) result[keys[index]!] = (source as Record<string, unknown>)[keys[index]!];
  return result;
}

/**
 * The summary of a field too large for any event on its own (its copy, `partial`, stopped early):
 * its exact size measured on the original, its preview from the prefix copy.
 */
function summariseField(field: unknown, partial: unknown, depth: number, context: CopyContext): TruncatedEventData {
  const bytes = sanitizedBytes(field, depth, context) ?? 0;
  const summary = truncatedSummary(partial, bytes, context.maxBytes);
  context.summaries++;
  context.grownBy += bytes - utf8Length(JSON.stringify(summary));
  return summary;
}

/**
 * `sanitizeEvent` for a bare data object that is not an event yet (an error to keep in a run
 * record): redacted, inert and cut to `maxEventBytes` the same way, and the truncation summary
 * (`{truncated: true, …}`) when its strings cannot make it fit.
 */
export function sanitizeData(data: Record<string, unknown>, options: SanitizeOptions = {}): Record<string, unknown> {
  // The envelope is only a carrier: the sanitiser reads nothing of it but `data`.
  const carrier = { type: 'log', run_id: '', seq: 0, ts: '', data } as AgentEvent;
  return sanitizeEvent(carrier, options).data;
}
