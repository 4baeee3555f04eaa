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
 * Size: an event larger than `maxEventBytes` (UTF-8 of its JSON, default 64 KiB) has its longest
 * strings cut, each ending in `…[truncated N bytes]`; if strings are not what makes it large, its
 * `data` is replaced by `{truncated: true, original_bytes, preview}`. The result is always valid JSON.
 */
import type { AgentEvent, EventType } from './event.js';
import { FORBIDDEN_KEYS } from '../util/forbidden-keys.js';
import { isPlainObject } from '../util/plain-object.js';

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

/** A sanitized event and the UTF-8 size of its JSON. */
export interface SanitizedEvent {
  event: AgentEvent;
  bytes: number;
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
  /** Keys already classified (redacted or not); kept across the events of one sanitiser. */
  keyVerdicts: Map<string, KeyVerdict>;
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
  const context = createContext(options);
  return (event, exact = true) => {
    // Copies pop what they push, so `ancestors` is empty unless a copy threw.
    if (context.ancestors.length !== 0) context.ancestors.length = 0;
    context.sizeBound = 0;
    return sanitizeWith(event, options, exact, context);
  };
}

/** Makes a run's event from its parts, sanitised: what `createEventSanitizer` gives for the assembled event. */
export type EventMaker = (type: EventType, runId: string, seq: number, ts: string, data: unknown, node: string | undefined) => SanitizedEvent;

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
  const context = createContext(options);
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
  return (type, runId, seq, ts, data, node) => {
    if (!isPlainObject(data) || !knownTypes.has(type)) return general(type, runId, seq, ts, data, node);
    if (context.ancestors.length !== 0) context.ancestors.length = 0;
    context.sizeBound = 0;
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
    return measured(event, options, exact, context);
  };
}

function sanitize(event: AgentEvent, options: SanitizeOptions, measure: boolean): SanitizedEvent {
  return sanitizeWith(event, options, measure, createContext(options));
}

function sanitizeWith(event: AgentEvent, options: SanitizeOptions, measure: boolean, context: CopyContext): SanitizedEvent {
  const copy = copyValue(event, 0, context) as AgentEvent;
  if (!isPlainObject(copy.data)) copy.data = {};
  return measured(copy, options, measure, context);
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

/** A redacted, inert copy of any value (for error details, state snapshots). */
export function sanitizeValue(value: unknown, options: SanitizeOptions = {}): unknown {
  return copyValue(value, 0, createContext(options));
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
  return { secrets, redactKeys, shortestKey, longestKey, maxDepth: options.maxDepth ?? 64, ancestors: [], sizeBound: 0, keyVerdicts: new Map() };
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
      return copied;
    }
    case 'number':
      context.sizeBound += 25;
      return Number.isFinite(value) ? value : null;
    case 'boolean':
      context.sizeBound += 6;
      return value;
    case 'bigint': {
      const text = value.toString();
      context.sizeBound += stringBound(text);
      return text;
    }
    case 'object':
      if (value === null) {
        context.sizeBound += 5;
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
  try {
    if (Array.isArray(value)) return copyArray(value, depth, context);
    const toJSON = 'toJSON' in value ? value.toJSON : undefined;
    if (value instanceof Error && typeof toJSON !== 'function') {
      return { name: copyValue(value.name, depth, context), message: copyValue(value.message, depth, context) };
    }
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
  const result = new Array<unknown>(value.length);
  for (let index = 0; index < value.length; index++) {
    context.sizeBound += 1;
    if (isHeaderPair && index === 1) {
      result[index] = copyValue(REDACTED, depth, context);
      continue;
    }
    const copied = copyValue(value[index], depth + 1, context);
    if (copied === undefined) context.sizeBound += 5;
    result[index] = copied === undefined ? null : copied;
  }
  return result;
}

function copyFields(value: object, depth: number, context: CopyContext): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const verdict = keyVerdict(key, context);
    if (verdict === KeyVerdict.Drop) continue;
    const field = (value as Record<string, unknown>)[key];
    if (verdict === KeyVerdict.Redact) {
      if (field !== undefined && field !== null) {
        result[key] = REDACTED;
        context.sizeBound += stringBound(key) + stringBound(REDACTED) + 2;
      }
      continue;
    }
    const copied = copyValue(field, depth + 1, context);
    if (copied !== undefined) {
      // A secret used as a key name (`{[key]: 1}` built by an agent) must not leak either.
      const name = context.secrets.length > 0 ? redactString(key, context) : key;
      result[name] = copied;
      context.sizeBound += stringBound(name) + 2;
    }
  }
  return result;
}

/** Strings longer than this are first scanned by a regex for units that take more than one byte. */
const FAST_SCAN_LENGTH = 32;
const NON_ASCII = /[^\x00-\x7f]/;
/** A unit whose JSON form in UTF-8 is not one byte: controls, `"`, `\\`, and all of non-ASCII. */
const JSON_WIDE_UNIT = /["\\\x00-\x1f\x80-\uffff]/;

/** UTF-8 byte length of a string (lone surrogates count as the 3-byte replacement character). */
export function utf8Length(text: string): number {
  // A long ASCII text (most of a large event's JSON) is counted by the regex engine, not a loop.
  if (text.length > FAST_SCAN_LENGTH && !NON_ASCII.test(text)) return text.length;
  let bytes = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && index + 1 < text.length && (text.charCodeAt(index + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      index++;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * UTF-8 bytes of a string's JSON form, quotes excluded: `utf8Length(JSON.stringify(text)) - 2`,
 * counted without making the JSON (escapes: `\"` `\\` and `\n`-style 2 bytes, other controls and
 * lone surrogates `\uXXXX` 6 bytes).
 */
export function jsonStringBytes(text: string): number {
  if (text.length > FAST_SCAN_LENGTH && !JSON_WIDE_UNIT.test(text)) return text.length;
  let bytes = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code >= 0x20 && code < 0x80) bytes += code === 0x22 || code === 0x5c ? 2 : 1;
    else if (code < 0x20) bytes += code === 0x08 || code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d ? 2 : 6;
    else if (code < 0x800) bytes += 2;
    else if (code < 0xd800 || code > 0xdfff) bytes += 3;
    else if (code <= 0xdbff && index + 1 < text.length && (text.charCodeAt(index + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      index++;
    } else bytes += 6;
  }
  return bytes;
}

/** Bytes a UTF-16 unit takes inside a JSON string (escapes included), for units outside pairs. */
function jsonUnitBytes(code: number): number {
  if (code === 0x22 || code === 0x5c) return 2;
  if (code < 0x20) return code === 0x08 || code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d ? 2 : 6;
  if (code < 0x80) return 1;
  if (code < 0x800) return 2;
  return 3;
}

/** The longest prefix of `text` whose JSON form fits in `maxBytes`, never splitting a surrogate pair. */
function sliceJson(text: string, maxBytes: number): string {
  let bytes = 0;
  let index = 0;
  while (index < text.length) {
    const code = text.charCodeAt(index);
    const pair = code >= 0xd800 && code <= 0xdbff && index + 1 < text.length && (text.charCodeAt(index + 1) & 0xfc00) === 0xdc00;
    const size = pair ? 4 : jsonUnitBytes(code);
    if (bytes + size > maxBytes) break;
    bytes += size;
    index += pair ? 2 : 1;
  }
  return text.slice(0, index);
}

interface StringLeaf {
  holder: Record<string, unknown> | unknown[];
  key: string | number;
  text: string;
  /** UTF-8 bytes of the string's JSON form, quotes excluded. */
  cost: number;
}

/** The summed cost of every string in `value`; each is also listed in `leaves` when given. */
function collectStrings(value: unknown, leaves: StringLeaf[] | undefined): number {
  if (value === null || typeof value !== 'object') return 0;
  const holder = value as Record<string, unknown>;
  let sum = 0;
  for (const key of Object.keys(holder)) {
    const field = holder[key];
    if (typeof field === 'string') {
      const cost = jsonStringBytes(field);
      leaves?.push({ holder, key, text: field, cost });
      sum += cost;
    } else sum += collectStrings(field, leaves);
  }
  return sum;
}

function truncationMarker(removedBytes: number): string {
  return `…[truncated ${removedBytes} bytes]`;
}

/**
 * Cuts the longest strings in `data` to a common length so the event fits; falls back to a
 * summary of `data` when the strings cannot make it fit.
 */
function capEvent(event: AgentEvent, bytes: number, maxBytes: number): SanitizedEvent {
  // `event` is already this module's own copy, so strings are cut in place; each leaf keeps its
  // original text, so a second attempt with a lower target starts again from the originals.
  // The strings are only listed when cutting them could help: a large state (thousands of
  // strings in a skeleton already past the cap) goes straight to the summary.
  const stringBytes = collectStrings(event.data, undefined);
  const leaves: StringLeaf[] = [];
  if (bytes - stringBytes < maxBytes) collectStrings(event.data, leaves);
  let target = maxBytes;
  // When what is not string content already passes the cap, no cutting of strings can help.
  for (let attempt = 0; attempt < 4 && bytes - stringBytes < maxBytes; attempt++) {
    const limit = commonLimit(leaves.map((leaf) => leaf.cost), target - (bytes - stringBytes));
    if (limit === undefined) break;
    // The event's JSON differs from the measured one only in the cut strings, so its exact size is
    // `bytes` plus the change of each (no serialising per attempt).
    let size = bytes;
    for (const leaf of leaves) {
      if (leaf.cost <= limit) {
        (leaf.holder as Record<string, unknown>)[leaf.key] = leaf.text;
        continue;
      }
      const kept = sliceJson(leaf.text, limit);
      const cut = kept + truncationMarker(utf8Length(leaf.text) - utf8Length(kept));
      (leaf.holder as Record<string, unknown>)[leaf.key] = cut;
      size += jsonStringBytes(cut) - leaf.cost;
    }
    if (size <= maxBytes) return { event, bytes: size };
    target -= size - maxBytes + 64;
  }
  for (const leaf of leaves) (leaf.holder as Record<string, unknown>)[leaf.key] = leaf.text;
  const previewBytes = Math.max(0, Math.min(1024, maxBytes / 4));
  // Each character takes at least one byte, so a prefix a little longer than the byte budget is
  // enough (the two extra keep a surrogate pair at the edge whole).
  const preview = sliceJson(jsonPrefix(event.data, previewBytes + 2), previewBytes);
  const summary: AgentEvent = { ...event, data: { truncated: true, original_bytes: bytes, preview } };
  return { event: summary, bytes: utf8Length(JSON.stringify(summary)) };
}

/**
 * The first `length` characters (or more) of `JSON.stringify(value)` for an inert JSON value (this
 * module's copies: plain objects, arrays, strings, finite numbers, booleans, null), without
 * serialising all of a large value.
 */
export function jsonPrefix(value: unknown, length: number): string {
  const parts: string[] = [];
  let size = 0;
  const write = (text: string): boolean => {
    parts.push(text);
    size += text.length;
    return size < length;
  };
  const visit = (item: unknown): boolean => {
    if (item === null || typeof item !== 'object') return write(JSON.stringify(item) ?? 'null');
    if (Array.isArray(item)) {
      if (!write('[')) return false;
      for (let index = 0; index < item.length; index++) {
        if (index > 0 && !write(',')) return false;
        if (!visit(item[index] === undefined ? null : item[index])) return false;
      }
      return write(']');
    }
    if (!write('{')) return false;
    let first = true;
    for (const key of Object.keys(item)) {
      const field = (item as Record<string, unknown>)[key];
      if (field === undefined) continue;
      if (!write(`${first ? '' : ','}${JSON.stringify(key)}:`)) return false;
      first = false;
      if (!visit(field)) return false;
    }
    return write('}');
  };
  visit(value);
  return parts.join('');
}

/** The largest per-string length L so that Σ min(cost, L) plus a marker per cut string fits `budget`. */
function commonLimit(costs: number[], budget: number): number | undefined {
  const markerBytes = utf8Length(truncationMarker(10_000_000));
  const sorted = [...costs].sort((left, right) => left - right);
  let below = 0;
  for (let index = 0; index < sorted.length; index++) {
    const remaining = sorted.length - index;
    const limit = Math.floor((budget - below - remaining * markerBytes) / remaining);
    if (limit < 0) return undefined;
    if (limit < sorted[index]!) return limit;
    below += sorted[index]!;
  }
  return undefined;
}

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
