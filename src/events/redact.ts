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
import type { AgentEvent, EventType, TruncatedEventData } from './event.js';
import { FORBIDDEN_KEYS } from '../util/forbidden-keys.js';
import { isPlainObject } from '../util/plain-object.js';
import { capEvent, jsonStringBytes, summarised, truncatedSummary, utf8Length, type SanitizedEvent } from './event-size.js';

export { jsonPrefix, jsonStringBytes, utf8Length, type SanitizedEvent } from './event-size.js';

export const REDACTED = '[REDACTED]';
export const DEFAULT_MAX_EVENT_BYTES = 64 * 1024;
export const DEFAULT_MAX_RUN_EVENTS = 10_000;
export const DEFAULT_MAX_RUN_BYTES = 8 * 1024 * 1024;

/** Key names whose values are credentials (compared lower-case with `-` and `_` removed). */
const CREDENTIAL_KEYS: ReadonlySet<string> = new Set(['authorization', 'proxyauthorization', 'apikey', 'xapikey', 'xgoogapikey', 'cookie', 'setcookie']);
const BEARER_PATTERN = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/g;
/** The shortest text BEARER_PATTERN can match (`Basic` + one space + 8 characters). */
const MIN_CREDENTIAL_LENGTH = 14;
const MIN_SECRET_LENGTH = 4;
const NO_SECRETS: readonly string[] = [];

export interface SanitizeOptions {
  /** Secret values (API keys, tokens) to redact wherever they appear. */
  secrets?: readonly string[];
  /** Per-event cap in bytes (UTF-8 of the JSON); default 64 KiB. */
  maxEventBytes?: number;
  /** More key names to redact, besides the credential names above. */
  redactKeys?: readonly string[];
  /** Deepest nesting kept; default 64. */
  maxDepth?: number;
}

interface CopyContext {
  secrets: readonly string[];
  redactKeys: ReadonlySet<string>;
  /** Shortest and longest redacted or dropped key, so most keys are passed by length alone. */
  shortestKey: number;
  longestKey: number;
  maxDepth: number;
  /** The objects being copied, outermost first (cycle detection; shallow, so an array is fastest). */
  ancestors: object[];
  /** An upper bound of the copy's JSON size in bytes, kept while copying. */
  sizeBound: number;
  /**
   * A lower bound of the bytes of the copy's JSON that are not string content (brackets, keys,
   * quotes, numbers), counted for what is already in the copy.
   */
  floor: number;
  /**
   * When `floor` passes this, copying stops: the event is over the cap whatever its strings, so it
   * will be summarised, and the copy made so far is all the summary's preview needs.
   */
  stopAt: number;
  /**
   * The depth of the object whose fields each have their own `floor` (an event's data, at 1; -1
   * in plain value copies): a field whose copy stops early is too large for any event on its own
   * and is replaced by its summary there, the other fields kept.
   */
  fieldDepth: number;
  /** The cap, for the summaries' previews. */
  maxBytes: number;
  /** Fields summarised by this copy, and how many bytes more the originals take than the summaries. */
  summaries: number;
  grownBy: number;
  /** Keys already classified (redacted or not); kept across the events of one sanitiser. */
  keyVerdicts: Map<string, KeyVerdict>;
  /** `"key":` sizes already counted by `sanitizedBytes` (the same few keys repeat thousands of times). */
  keyBytes: Map<string, number>;
  /** Exact sizes of large subtrees, for the caller to keep between events (`SizeMemo`). */
  sizeMemo: SizeMemo | undefined;
  /** Markers (`[circular]`, `[depth limit]`, `[unserialisable]`) counted so far: a subtree that made one depends on where it sits. */
  markers: number;
  /**
   * Share what needs no change instead of copying it (`sanitizeValue(…, share)`): a plain object or
   * list whose copy would equal it is returned as it is. Never with `stopAt` (a stopped copy is a prefix).
   */
  share: boolean;
}

/** Classified keys remembered per sanitiser; past this, keys are classified each time. */
const MAX_KEY_VERDICTS = 4096;

function normaliseKey(key: string): string {
  return key.toLowerCase().replace(/[-_]/g, '');
}

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
export function createEventSanitizer(options: SanitizeOptions = {}): (event: AgentEvent, exact?: boolean) => SanitizedEvent {
  const context = createEventContext(options);
  return (event, exact = true) => {
    resetContext(context);
    return sanitizeWith(event, options, exact, context);
  };
}

/** Makes a run's event from its parts, sanitised: what `createEventSanitizer` gives for the assembled event. */
export type EventMaker = (type: EventType, runId: string, seq: number, ts: string, data: unknown, node: string | undefined, sizes?: SizeMemo) => SanitizedEvent;

/**
 * Exact sizes of large values measured for an event's summary, by object and depth, for the next
 * events to reuse. Only for values nobody changes in between: the engine keeps one from a node's
 * `node_end` to the run's `done` (the same final state), and drops it when anything else runs.
 */
export type SizeMemo = WeakMap<object, { bytes: number; depth: number }>;

/** Subtrees at least this large are remembered in a SizeMemo. */
const MEMO_MIN_BYTES = 16 * 1024;

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
export function createEventMaker(eventTypes: readonly string[], options: SanitizeOptions = {}, exact = false): EventMaker {
  const sanitizeEvent = createEventSanitizer(options);
  const context = createEventContext(options);
  const general: EventMaker = (type, runId, seq, ts, data, node) => {
    const event = { type, run_id: runId, seq, ts, data } as AgentEvent;
    if (node !== undefined) event.node = node;
    return sanitizeEvent(event, exact);
  };
  if (context.maxDepth <= 1 || context.secrets.some((secret) => [...ENVELOPE_KEYS, ...eventTypes].some((name) => name.includes(secret)))) return general;
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
  // What the keys and the object add to the bound (see copyObject and copyFields).
  const keyBound = (key: string) => stringBound(key) + 2;
  const fixedBound = 2 + keyBound('type') + keyBound('run_id') + keyBound('seq') + 25 + keyBound('ts') + keyBound('data');
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
    const event = { type: cleanType, run_id: cleanRunId, seq: Number.isFinite(seq) ? seq : null, ts: cleanTs, data: copied } as AgentEvent;
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

function sanitizeWith(event: AgentEvent, options: SanitizeOptions, measure: boolean, context: CopyContext): SanitizedEvent {
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
  return bytes <= context.maxBytes ? { event, bytes } : capEvent(event, bytes, context.maxBytes, bytes + context.grownBy);
}

/**
 * An event whose copy stopped early (`stopAt`) with no single field to blame (a field too large
 * on its own is summarised where it is, see `fieldDepth`): what is not string content already
 * passes the cap, so no cutting of strings can make it fit and `data` becomes the summary. Its
 * exact size is measured on the original without copying the rest; the preview comes from the
 * prefix copy in `partial`.
 */
function stoppedEarly(partial: AgentEvent, original: AgentEvent, options: SanitizeOptions, context: CopyContext): SanitizedEvent {
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

function createContext(options: SanitizeOptions): CopyContext {
  let secrets = NO_SECRETS;
  if (options.secrets !== undefined && options.secrets.length > 0) {
    secrets = [...new Set(options.secrets)]
      .filter((secret) => typeof secret === 'string' && secret.length >= MIN_SECRET_LENGTH)
      .sort((left, right) => right.length - left.length);
  }
  let redactKeys = CREDENTIAL_KEYS;
  if (options.redactKeys !== undefined && options.redactKeys.length > 0) {
    redactKeys = new Set([...CREDENTIAL_KEYS, ...options.redactKeys.map(normaliseKey)]);
  }
  let shortestKey = Infinity;
  let longestKey = 0;
  for (const key of redactKeys) {
    shortestKey = Math.min(shortestKey, key.length);
    longestKey = Math.max(longestKey, key.length + 4);
  }
  for (const key of FORBIDDEN_KEYS) {
    shortestKey = Math.min(shortestKey, key.length);
    longestKey = Math.max(longestKey, key.length);
  }
  const maxBytes = options.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES;
  return { secrets, redactKeys, shortestKey, longestKey, maxDepth: options.maxDepth ?? 64, ancestors: [], sizeBound: 0, floor: 0, stopAt: Infinity, fieldDepth: -1, maxBytes, summaries: 0, grownBy: 0, keyVerdicts: new Map(), keyBytes: new Map(), sizeMemo: undefined, markers: 0, share: false };
}

/**
 * Below this cap, copies of events are never stopped early: a preview needs the copy to hold more
 * than its own size plus one closing bracket per level (see `stopAt`).
 */
const MIN_EARLY_STOP_BYTES = 1024;

/** A context for sanitising events: copies stop early once an event is sure to be summarised. */
function createEventContext(options: SanitizeOptions): CopyContext {
  const context = createContext(options);
  if (context.maxBytes >= MIN_EARLY_STOP_BYTES) {
    context.stopAt = context.maxBytes;
    context.fieldDepth = 1;
  }
  return context;
}

/** Clears what one copy leaves in a reused context. */
function resetContext(context: CopyContext): void {
  // Copies pop what they push, so `ancestors` is empty unless a copy threw.
  if (context.ancestors.length !== 0) context.ancestors.length = 0;
  context.sizeBound = 0;
  context.floor = 0;
  context.summaries = 0;
  context.grownBy = 0;
  context.sizeMemo = undefined;
}

/** True for a key whose value is a credential. */
function isRedactedKey(key: string, context: CopyContext): boolean {
  return keyVerdict(key, context) === KeyVerdict.Redact;
}

const enum KeyVerdict {
  Keep,
  /** A credential name: its value becomes `[REDACTED]`. */
  Redact,
  /** `__proto__`, `constructor`, `prototype`: left out. */
  Drop,
}

/** What happens to a key: one length check for most keys, one cached lookup for the rest. */
function keyVerdict(key: string, context: CopyContext): KeyVerdict {
  if (key.length < context.shortestKey || key.length > context.longestKey) return KeyVerdict.Keep;
  let verdict = context.keyVerdicts.get(key);
  if (verdict !== undefined) return verdict;
  verdict = FORBIDDEN_KEYS.has(key) ? KeyVerdict.Drop : context.redactKeys.has(normaliseKey(key)) ? KeyVerdict.Redact : KeyVerdict.Keep;
  if (context.keyVerdicts.size < MAX_KEY_VERDICTS) context.keyVerdicts.set(key, verdict);
  return verdict;
}

function redactString(text: string, context: CopyContext): string {
  return redactText(text, context.secrets);
}

/**
 * `text` with every one of `secrets` (already filtered and sorted longest first) and every
 * `Bearer`/`Basic` credential replaced by `[REDACTED]`.
 */
export function redactText(text: string, secrets: readonly string[]): string {
  let result = text;
  for (const secret of secrets) if (result.includes(secret)) result = result.split(secret).join(REDACTED);
  // One scan for the letter both words start with (absent from ids, timestamps, most text) first.
  if (result.length >= MIN_CREDENTIAL_LENGTH && result.includes('B') && (result.includes('Bearer') || result.includes('Basic'))) {
    result = result.replace(BEARER_PATTERN, `$1 ${REDACTED}`);
  }
  return result;
}

/** A string's JSON size is at most 6 bytes per UTF-16 unit (`\u00XX` escapes) plus quotes. */
function stringBound(text: string): number {
  return text.length * 6 + 3;
}

function copyValue(value: unknown, depth: number, context: CopyContext): unknown {
  switch (typeof value) {
    case 'string': {
      const copied = redactString(value, context);
      context.sizeBound += stringBound(copied);
      context.floor += 2;
      return copied;
    }
    case 'number':
      context.sizeBound += 25;
      context.floor += 1;
      return Number.isFinite(value) ? value : null;
    case 'boolean':
      context.sizeBound += 6;
      context.floor += 4;
      return value;
    case 'bigint': {
      const text = value.toString();
      context.sizeBound += stringBound(text);
      context.floor += 2;
      return text;
    }
    case 'object':
      if (value === null) {
        context.sizeBound += 5;
        context.floor += 4;
        return null;
      }
      return copyObject(value, depth, context);
    default:
      return undefined;
  }
}

function copyObject(value: object, depth: number, context: CopyContext): unknown {
  if (context.ancestors.includes(value)) return copyValue('[circular]', depth, context);
  if (depth >= context.maxDepth) return copyValue('[depth limit]', depth, context);
  context.ancestors.push(value);
  context.sizeBound += 2;
  context.floor += 2;
  try {
    if (Array.isArray(value)) return copyArray(value, depth, context);
    const toJSON = 'toJSON' in value ? value.toJSON : undefined;
    if (value instanceof Error && typeof toJSON !== 'function') return copyFields(errorFields(value), depth, context);
    if (typeof toJSON === 'function') {
      let converted: unknown;
      try {
        converted = toJSON.call(value);
      } catch {
        return copyValue('[unserialisable]', depth, context);
      }
      return converted === value ? copyFields(value, depth, context) : copyValue(converted, depth + 1, context);
    }
    return copyFields(value, depth, context);
  } finally {
    context.ancestors.pop();
  }
}

function copyArray(value: unknown[], depth: number, context: CopyContext): unknown[] {
  const isHeaderPair = value.length === 2 && typeof value[0] === 'string' && isRedactedKey(value[0], context);
  // Sharing, the copy starts at the first item that changes (the items before are the same).
  let result: unknown[] | undefined = context.share ? undefined : new Array<unknown>(value.length);
  for (let index = 0; index < value.length; index++) {
    if (context.floor > context.stopAt) {
      result!.length = index;
      break;
    }
    context.sizeBound += 1;
    if (index > 0) context.floor += 1;
    const item = value[index];
    let copied = isHeaderPair && index === 1 ? copyValue(REDACTED, depth, context) : copyValue(item, depth + 1, context);
    if (copied === undefined) {
      context.sizeBound += 5;
      copied = null;
    }
    if (result === undefined) {
      if (copied === item) continue;
      result = value.slice(0, index);
    }
    result[index] = copied;
  }
  return result ?? value;
}

function copyFields(value: object, depth: number, context: CopyContext): Record<string, unknown> {
  const source = value as Record<string, unknown>;
  // Sharing, a plain object's copy starts at the first field that changes (see sharedPrefix).
  let result: Record<string, unknown> | undefined = context.share && isPlainPrototype(value) ? undefined : {};
  const ownFloors = depth === context.fieldDepth;
  const keys = Object.keys(value);
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index]!;
    if (context.floor > context.stopAt) break;
    const verdict = keyVerdict(key, context);
    if (verdict === KeyVerdict.Drop) {
      result ??= sharedPrefix(source, keys, index);
      continue;
    }
    const field = source[key];
    if (verdict === KeyVerdict.Redact) {
      result ??= sharedPrefix(source, keys, index);
      if (field !== undefined && field !== null) {
        result[key] = REDACTED;
        context.sizeBound += stringBound(key) + stringBound(REDACTED) + 2;
        context.floor += key.length + 5;
      }
      continue;
    }
    const floorBefore = context.floor;
    if (ownFloors) context.floor = 0;
    let copied = copyValue(field, depth + 1, context);
    if (ownFloors) {
      if (copied !== undefined && context.floor > context.stopAt) {
        copied = summariseField(field, copied, depth + 1, context);
        context.floor = 0;
      }
      context.floor += floorBefore;
    }
    // A secret used as a key name (`{[key]: 1}` built by an agent) must not leak either.
    const name = copied !== undefined && context.secrets.length > 0 ? redactString(key, context) : key;
    if (result === undefined) {
      if (copied === field && copied !== undefined && name === key) continue;
      result = sharedPrefix(source, keys, index);
    }
    if (copied !== undefined) {
      result[name] = copied;
      context.sizeBound += stringBound(name) + 2;
      context.floor += name.length + 3;
    }
  }
  return result ?? source;
}

/** A new object with the first `count` fields of `source`: the ones a sharing copy found unchanged. */
function sharedPrefix(source: Record<string, unknown>, keys: string[], count: number): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (let index = 0; index < count; index++) result[keys[index]!] = source[keys[index]!];
  return result;
}

function isPlainPrototype(value: object): boolean {
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
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
 * The UTF-8 size of `JSON.stringify(copyValue(value, depth, context))`, without building the copy
 * (a value too large to keep: its summary names its exact size). It follows copyValue case by
 * case, and is undefined where the copy is (a test holds the two together).
 */
function sanitizedBytes(value: unknown, depth: number, context: CopyContext): number | undefined {
  switch (typeof value) {
    case 'string':
      return jsonStringBytes(redactString(value, context)) + 2;
    case 'number':
      // A finite number's JSON is its ASCII string form; the others are `null`.
      return Number.isFinite(value) ? String(value).length : 4;
    case 'boolean':
      return value ? 4 : 5;
    case 'bigint':
      return value.toString().length + 2;
    case 'object':
      return value === null ? 4 : objectBytes(value, depth, context);
    default:
      return undefined;
  }
}

function objectBytes(value: object, depth: number, context: CopyContext): number | undefined {
  if (context.ancestors.includes(value)) return markerBytes('[circular]', depth, context);
  if (depth >= context.maxDepth) return markerBytes('[depth limit]', depth, context);
  const remembered = context.sizeMemo?.get(value);
  if (remembered !== undefined && remembered.depth === depth) return remembered.bytes;
  const markers = context.markers;
  context.ancestors.push(value);
  try {
    let bytes: number | undefined;
    let plain = false;
    if (Array.isArray(value)) {
      bytes = arrayBytes(value, depth, context);
      plain = true;
    } else {
      const toJSON = 'toJSON' in value ? value.toJSON : undefined;
      if (value instanceof Error && typeof toJSON !== 'function') return fieldsBytes(errorFields(value), depth, context);
      if (typeof toJSON === 'function') {
        let converted: unknown;
        try {
          converted = toJSON.call(value);
        } catch {
          return markerBytes('[unserialisable]', depth, context);
        }
        return converted === value ? fieldsBytes(value, depth, context) : sanitizedBytes(converted, depth + 1, context);
      }
      bytes = fieldsBytes(value, depth, context);
      plain = true;
    }
    // A plain subtree with no marker in it has the same size wherever it is at this depth.
    if (plain && context.sizeMemo !== undefined && bytes >= MEMO_MIN_BYTES && context.markers === markers) context.sizeMemo.set(value, { bytes, depth });
    return bytes;
  } finally {
    context.ancestors.pop();
  }
}

function markerBytes(marker: string, depth: number, context: CopyContext): number {
  context.markers++;
  return sanitizedBytes(marker, depth, context)!;
}

function arrayBytes(value: unknown[], depth: number, context: CopyContext): number {
  const isHeaderPair = value.length === 2 && typeof value[0] === 'string' && isRedactedKey(value[0], context);
  let bytes = value.length > 0 ? value.length + 1 : 2;
  for (let index = 0; index < value.length; index++) {
    const item = isHeaderPair && index === 1 ? REDACTED : value[index];
    bytes += sanitizedBytes(item, depth + 1, context) ?? 4;
  }
  return bytes;
}

function fieldsBytes(value: object, depth: number, context: CopyContext): number {
  let bytes = 2;
  let count = 0;
  for (const key of Object.keys(value)) {
    const verdict = keyVerdict(key, context);
    if (verdict === KeyVerdict.Drop) continue;
    const field = (value as Record<string, unknown>)[key];
    let size: number | undefined;
    if (verdict === KeyVerdict.Redact) size = field !== undefined && field !== null ? REDACTED_BYTES : undefined;
    else size = sanitizedBytes(field, depth + 1, context);
    if (size === undefined) continue;
    const name = verdict === KeyVerdict.Keep && context.secrets.length > 0 ? redactString(key, context) : key;
    bytes += memberBytes(name, size, count++, context);
  }
  return bytes;
}

/** `"name":value` and the comma before it, for the member at `index`. */
function memberBytes(name: string, size: number, index: number, context: CopyContext): number {
  let keyBytes = context.keyBytes.get(name);
  if (keyBytes === undefined) {
    keyBytes = jsonStringBytes(name) + 3;
    if (context.keyBytes.size < MAX_KEY_VERDICTS) context.keyBytes.set(name, keyBytes);
  }
  return keyBytes + size + (index > 0 ? 1 : 0);
}

/** What is kept of an Error (one without toJSON): its name and message, as fields. */
function errorFields(error: Error): Record<string, unknown> {
  return { name: error.name, message: error.message };
}

/** `"[REDACTED]"`. */
const REDACTED_BYTES = REDACTED.length + 2;

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
