/**
 * The exact UTF-8 size of a sanitised copy's JSON, measured on the original without building the
 * copy (a value too large for an event: its summary names its exact size). It follows redact.ts's
 * copy case by case (a test holds the two together) and can remember the sizes of large subtrees
 * in a SizeMemo.
 */
import { isRedactedKey, KeyVerdict, keyVerdict, MAX_KEY_VERDICTS, REDACTED, redactString, type CopyContext } from './copy-context.js';
import { jsonStringBytes } from './event-size.js';

/** Subtrees at least this large are remembered in a SizeMemo. */
const MEMO_MIN_BYTES = 16 * 1024;

/**
 * The UTF-8 size of `JSON.stringify(copyValue(value, depth, context))`, without building the copy
 * (a value too large to keep: its summary names its exact size). It follows copyValue case by
 * case, and is undefined where the copy is (a test holds the two together).
 */
export function sanitizedBytes(value: unknown, depth: number, context: CopyContext): number | undefined {
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
export function errorFields(error: Error): Record<string, unknown> {
  return { name: error.name, message: error.message };
}

/** `"[REDACTED]"`. */
const REDACTED_BYTES = REDACTED.length + 2;
