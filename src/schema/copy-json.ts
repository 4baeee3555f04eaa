/**
 * copyJson: a deep copy of a JSON-like value that never walks deeper than a cap, keeps keys such
 * as `__proto__` as plain own data (no prototype changes), and maps non-JSON values the way
 * `JSON.stringify` would (undefined, functions and symbols are dropped from objects and become
 * null elsewhere; bigint becomes a number). Used for schemas from agent files and for instances.
 */
export interface CopyJsonLimits {
  maxDepth: number;
  maxNodes: number;
  maxChars: number;
}

/** Why a copy stopped: which cap, and the JSON pointer where it was hit. */
export interface CopyJsonOverflow {
  limit: 'depth' | 'nodes' | 'chars';
  path: string;
}

export type CopyJsonResult = { ok: true; value: unknown } | { ok: false; overflow: CopyJsonOverflow };

/** Copies `value`; on a cap, reports which one instead of throwing. */
export function copyJson(value: unknown, limits: CopyJsonLimits): CopyJsonResult {
  const counters = { nodes: 0, chars: 0 };
  try {
    return { ok: true, value: copyValue(value, limits, counters, 0, '') ?? null };
  } catch (error) {
    if (error instanceof Overflow) return { ok: false, overflow: { limit: error.limit, path: error.path } };
    throw error;
  }
}

class Overflow {
  constructor(
    readonly limit: CopyJsonOverflow['limit'],
    readonly path: string,
  ) {}
}

function copyValue(value: unknown, limits: CopyJsonLimits, counters: { nodes: number; chars: number }, depth: number, path: string): unknown {
  counters.nodes += 1;
  if (counters.nodes > limits.maxNodes) throw new Overflow('nodes', path);
  switch (typeof value) {
    case 'string':
      counters.chars += value.length;
      if (counters.chars > limits.maxChars) throw new Overflow('chars', path);
      return value;
    case 'number':
    case 'boolean':
      return value;
    case 'bigint':
      return Number(value);
    case 'object':
      break;
    default:
      return undefined;
  }
  if (value === null) return null;
  if (depth >= limits.maxDepth) throw new Overflow('depth', path);
  if (Array.isArray(value)) {
    return value.map((item, index) => copyValue(item, limits, counters, depth + 1, `${path}/${index}`) ?? null);
  }
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    counters.chars += key.length;
    if (counters.chars > limits.maxChars) throw new Overflow('chars', path);
    const item = copyValue((value as Record<string, unknown>)[key], limits, counters, depth + 1, `${path}/${escapeToken(key)}`);
    if (item === undefined) continue;
    // Plain assignment keeps objects fast; only `__proto__` needs defining to stay a data key.
    if (key === '__proto__') Object.defineProperty(copy, key, { value: item, enumerable: true, writable: true, configurable: true });
    else copy[key] = item;
  }
  return copy;
}

/** Escapes one JSON pointer token (`~` → `~0`, `/` → `~1`). */
export function escapeToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}
