/**
 * The exact UTF-8 size of a sanitised copy's JSON, measured on the original without building the
 * copy (a value too large for an event: its summary names its exact size). The walk is the copy's
 * own (sanitize-walk.ts); this consumer counts bytes where redact.ts's builds, and remembers the
 * sizes of large subtrees in a SizeMemo.
 */
import { MAX_KEY_VERDICTS, type CopyContext } from './copy-context.js';
import { jsonStringBytes } from './event-size.js';
import { walkValue, type WalkConsumer } from './sanitize-walk.js';

/** Subtrees at least this large are remembered in a SizeMemo. */
const MEMO_MIN_BYTES = 16 * 1024;

/**
 * The UTF-8 size of `JSON.stringify(copyValue(value, depth, context))` (redact.ts), without
 * building the copy; undefined where the copy is.
 */
export function sanitizedBytes(value: unknown, depth: number, context: CopyContext): number | undefined {
  return walkValue(value, depth, context, SIZE);
}

/** Counts bytes: a value's result is the size of its JSON; a container's, the size so far. */
const SIZE: WalkConsumer<number, number> = {
  stops: false,
  string: (text) => jsonStringBytes(text) + 2,
  // A finite number's JSON is its ASCII string form.
  number: (value) => String(value).length,
  literal: (value) => (value === false ? 5 : 4),
  recall(value, depth, context) {
    const remembered = context.sizeMemo?.get(value);
    return remembered !== undefined && remembered.depth === depth ? remembered.bytes : undefined;
  },
  remember(value, depth, bytes, clean, context) {
    if (clean && bytes >= MEMO_MIN_BYTES && context.sizeMemo !== undefined)
      context.sizeMemo.set(value, { bytes, depth });
  },
  startArray: () => 1,
  item: (bytes, index, size) => bytes + size + (index > 0 ? 1 : 0),
  endArray: (bytes) => bytes + 1,
  startFields: () => 1,
  // Any member takes at least 3 bytes, so more than the `{` means a comma goes before this one.
  field: (bytes, _keys, _index, name, size, _original, _source, context) =>
    bytes + keyBytes(name, context) + size + (bytes > 1 ? 1 : 0),
  omit: (bytes) => bytes,
  endFields: (bytes) => bytes + 1,
  tooLarge: (_field, partial) => partial,
};

/** `"name":`, remembered per sanitiser (the same few keys repeat thousands of times). */
function keyBytes(name: string, context: CopyContext): number {
  let bytes = context.keyBytes.get(name);
  if (bytes === undefined) {
    bytes = jsonStringBytes(name) + 3;
    if (context.keyBytes.size < MAX_KEY_VERDICTS) context.keyBytes.set(name, bytes);
  }
  return bytes;
}
