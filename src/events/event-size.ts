/**
 * Sizes and cutting of an event's JSON: UTF-8 byte counts without serialising, the first bytes of
 * a large value's JSON, and the cap (docs/spec.md#7-storage-traces-and-checkpoints): an event
 * larger than the cap has its too-large fields summarised as `{truncated: true, original_bytes,
 * preview}`, then its longest strings cut, each ending in `…[truncated N bytes]`, then, when that is
 * not enough, its whole `data` summarised. The sanitiser (redact.ts) calls these on its own copies.
 */
import type { AgentEvent, TruncatedEventData } from '../core/events.js';

/** A sanitized event and the UTF-8 size of its JSON. */
export interface SanitizedEvent {
  event: AgentEvent;
  bytes: number;
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
    else if (
      code >= 0xd800 &&
      code <= 0xdbff &&
      index + 1 < text.length &&
      (text.charCodeAt(index + 1) & 0xfc00) === 0xdc00
    ) {
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
    else if (code < 0x20)
      bytes += code === 0x08 || code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d ? 2 : 6;
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
    const pair =
      code >= 0xd800 && code <= 0xdbff && index + 1 < text.length && (text.charCodeAt(index + 1) & 0xfc00) === 0xdc00;
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
 * Fits an event over the cap (`bytes` of JSON): each field of `data` holding an object or a list
 * whose skeleton alone (what is not string content) passes the cap becomes its summary (the other
 * fields stay: a `done` keeps its status); then the longest strings are cut to a common length; when that cannot make it fit,
 * `data` as a whole becomes the summary, naming `originalBytes` (the size before any of this).
 */
export function capEvent(event: AgentEvent, bytes: number, maxBytes: number, originalBytes = bytes): SanitizedEvent {
  const fielded = summariseLargeFields(event, bytes, maxBytes);
  if (fielded !== undefined) {
    if (fielded.bytes <= maxBytes) return fielded;
    ({ event, bytes } = fielded);
  }
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
    const limit = commonLimit(
      leaves.map((leaf) => leaf.cost),
      target - (bytes - stringBytes),
    );
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
  return summarised(event, event.data, originalBytes, maxBytes);
}

/**
 * `event` with the object or list fields of its data whose skeleton (what is not string content)
 * is larger than the cap summarised; undefined when none is.
 */
function summariseLargeFields(event: AgentEvent, bytes: number, maxBytes: number): SanitizedEvent | undefined {
  const data = event.data as Record<string, unknown>;
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return undefined;
  let result: Record<string, unknown> | undefined;
  let size = bytes;
  for (const key of Object.keys(data)) {
    const field = data[key];
    if (field === null || typeof field !== 'object') continue;
    const fieldBytes = utf8Length(JSON.stringify(field));
    // A field large because of its strings is cut like any string; only a skeleton past the cap
    // (a state of thousands of steps) is summarised.
    if (fieldBytes <= maxBytes || fieldBytes - collectStrings(field, undefined) <= maxBytes) continue;
    const summary = truncatedSummary(field, fieldBytes, maxBytes);
    size += utf8Length(JSON.stringify(summary)) - fieldBytes;
    (result ??= { ...data })[key] = summary;
  }
  return result === undefined ? undefined : { event: { ...event, data: result } as AgentEvent, bytes: size };
}

/** The most a summary's preview shows of the data's JSON, for a cap of `maxBytes`. */
export function previewBytesFor(maxBytes: number): number {
  return Math.max(0, Math.min(1024, maxBytes / 4));
}

/**
 * `event` with its data replaced by `{truncated: true, original_bytes: bytes, preview}`
 * (`truncatedSummary`).
 */
export function summarised(event: AgentEvent, data: unknown, bytes: number, maxBytes: number): SanitizedEvent {
  const summary: AgentEvent = { ...event, data: truncatedSummary(data, bytes, maxBytes) };
  return { event: summary, bytes: utf8Length(JSON.stringify(summary)) };
}

/**
 * What stands for a value too large to keep: `{truncated: true, original_bytes: bytes, preview}`,
 * the preview being the first bytes of `value`'s JSON. `value` may be a prefix copy of the value
 * (see redact.ts: a copy stopped early), as long as its JSON starts like the whole value's for more
 * than `previewBytesFor(maxBytes) + 2` bytes.
 */
export function truncatedSummary(value: unknown, bytes: number, maxBytes: number): TruncatedEventData {
  const previewBytes = previewBytesFor(maxBytes);
  // Each character takes at least one byte, so a prefix a little longer than the byte budget is
  // enough (the two extra keep a surrogate pair at the edge whole).
  return {
    truncated: true,
    original_bytes: bytes,
    preview: sliceJson(jsonPrefix(value, previewBytes + 2), previewBytes),
  };
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
