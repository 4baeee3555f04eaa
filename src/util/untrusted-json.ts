/**
 * JSON from models and tools is untrusted (docs/spec.md#9-limits-on-input): check size and nesting depth before parsing,
 * and drop the keys `__proto__`, `constructor` and `prototype` from every object afterwards, so a
 * parsed value can be merged or spread without touching any prototype.
 */
import { isForbiddenKey } from './forbidden-keys.js';
import { messageOf } from './message-of.js';

/** Caps applied before a model's or tool's JSON is parsed. */
export interface JsonLimits {
  /** Largest text, in characters (default 512 KiB). */
  maxLength: number;
  /** Deepest nesting of objects and arrays (default 64). */
  maxDepth: number;
}

export const DEFAULT_JSON_LIMITS: JsonLimits = { maxLength: 512 * 1024, maxDepth: 64 };

export type JsonParseOutcome = { ok: true; value: unknown } | { ok: false; error: string };

/**
 * Parses JSON text with size and depth caps; never throws.
 *
 * @example parseJsonSafely('{"a": [1, 2]}') // → {ok: true, value: {a: [1, 2]}}
 */
export function parseJsonSafely(text: string, limits: JsonLimits = DEFAULT_JSON_LIMITS): JsonParseOutcome {
  if (text.length > limits.maxLength) {
    return { ok: false, error: `JSON text too large (${text.length} characters; limit ${limits.maxLength})` };
  }
  // Text that cannot start a JSON value fails here, without the cost of a thrown SyntaxError.
  if (!/^\s*[[{"\dtfn-]/.test(text)) return { ok: false, error: 'not JSON: the text does not start with a JSON value' };
  const depth = nestingDepth(text);
  if (depth > limits.maxDepth) {
    return { ok: false, error: `JSON nested too deeply (depth over ${limits.maxDepth})` };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, error: messageOf(error, 'invalid JSON') };
  }
  // A forbidden key is in the text as it is, or written with \u escapes: otherwise there is none to drop.
  return { ok: true, value: mayHoldForbiddenKey(text) ? dropForbiddenKeys(value) : value };
}

/** False when no key of the JSON `text` can be `__proto__`, `constructor` or `prototype`. */
function mayHoldForbiddenKey(text: string): boolean {
  return (
    text.includes('\\u') || text.includes('__proto__') || text.includes('constructor') || text.includes('prototype')
  );
}

/** The deepest bracket nesting outside strings (a linear scan; no parsing). */
export function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const character = text.charCodeAt(index);
    if (inString) {
      if (character === 92 /* \ */) index++;
      else if (character === 34 /* " */) inString = false;
    } else if (character === 34) {
      inString = true;
    } else if (character === 123 /* { */ || character === 91 /* [ */) {
      depth++;
      if (depth > deepest) deepest = depth;
    } else if (character === 125 /* } */ || character === 93 /* ] */) {
      depth--;
    }
  }
  return deepest;
}

/** Removes forbidden keys in place from every object in a parsed JSON value; returns the value. */
export function dropForbiddenKeys<T>(value: T): T {
  if (Array.isArray(value)) {
    for (const item of value) dropForbiddenKeys(item);
  } else if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      if (isForbiddenKey(key)) delete record[key];
      else dropForbiddenKeys(record[key]);
    }
  }
  return value;
}
