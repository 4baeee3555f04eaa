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
  const walk = { nodes: 0, chars: 0, keys: [] as Array<string | number> };
  try {
    return { ok: true, value: copyValue(value, limits, walk, 0) ?? null };
  } catch (error) {
    if (error instanceof Overflow)
      return {
        ok: false,
        overflow: { limit: error.limit, path: walk.keys.map((key) => `/${escapeToken(String(key))}`).join('') },
      };
    throw error;
  }
}

class Overflow {
  constructor(readonly limit: CopyJsonOverflow['limit']) {}
}

/** Counters and the key path of the walk (the path is only read when a cap is hit). */
interface Walk {
  nodes: number;
  chars: number;
  keys: Array<string | number>;
}

function copyValue(value: unknown, limits: CopyJsonLimits, walk: Walk, depth: number): unknown {
  walk.nodes += 1;
  if (walk.nodes > limits.maxNodes) throw new Overflow('nodes');
  switch (typeof value) {
    case 'string':
      walk.chars += value.length;
      if (walk.chars > limits.maxChars) throw new Overflow('chars');
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
  if (depth >= limits.maxDepth) throw new Overflow('depth');
  if (Array.isArray(value)) {
    const copy = new Array<unknown>(value.length);
    for (let index = 0; index < value.length; index += 1) {
      walk.keys.push(index);
      copy[index] = copyValue(value[index], limits, walk, depth + 1) ?? null;
      walk.keys.pop();
    }
    return copy;
  }
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    walk.chars += key.length;
    if (walk.chars > limits.maxChars) throw new Overflow('chars');
    walk.keys.push(key);
    const item = copyValue((value as Record<string, unknown>)[key], limits, walk, depth + 1);
    walk.keys.pop();
    if (item === undefined) continue;
    // Plain assignment keeps objects fast; only `__proto__` needs defining to stay a data key.
    if (key === '__proto__')
      Object.defineProperty(copy, key, { value: item, enumerable: true, writable: true, configurable: true });
    else copy[key] = item;
  }
  return copy;
}

/** Escapes one JSON pointer token (`~` → `~0`, `/` → `~1`). */
export function escapeToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}
