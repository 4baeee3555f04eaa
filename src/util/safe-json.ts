/**
 * JSON helpers for values the engine keeps (state updates): plain JSON copies, shallow merges,
 * no prototype keys. Parsing untrusted JSON text lives in ./untrusted-json.ts.
 */
import { AgentError } from '../core/agent-error.js';
import { isForbiddenKey } from './forbidden-keys.js';

// Kept for callers that import it from here (src/graph); its home is ./plain-object.ts.
export { isPlainObject } from './plain-object.js';

/**
 * Returns a plain-JSON copy of a value (what JSON.stringify then JSON.parse would give), refusing
 * what JSON cannot hold (functions, symbols, bigint, cycles, non-finite numbers) with STATE_INVALID.
 * Prototype keys are dropped.
 */
export function toPlainJson(value: unknown, where = 'value', maxDepth = 128): unknown {
  const invalid = (message: string) => new AgentError('STATE_INVALID', `${where}: ${message}`);
  // A cycle recurses until the depth cap, so no set of visited objects is needed.
  const copy = (item: unknown, path: string, depth: number): unknown => {
    if (item === null || typeof item === 'string' || typeof item === 'boolean') return item;
    if (typeof item === 'number') {
      if (!Number.isFinite(item)) throw invalid(`${path} is ${item}, which JSON cannot hold`);
      return item;
    }
    if (item === undefined) return undefined;
    if (typeof item !== 'object') throw invalid(`${path} is a ${typeof item}, which JSON cannot hold`);
    if (depth > maxDepth) throw invalid(`${path} nests deeper than ${maxDepth} levels (or refers to itself)`);
    if (Array.isArray(item)) {
      const result = new Array(item.length);
      for (let index = 0; index < item.length; index++) result[index] = copy(item[index], path, depth + 1) ?? null;
      return result;
    }
    if (item instanceof Date) return item.toISOString();
    const result: Record<string, unknown> = {};
    for (const key of Object.keys(item)) {
      if (isForbiddenKey(key)) continue;
      const entry = copy((item as Record<string, unknown>)[key], path, depth + 1);
      if (entry !== undefined) result[key] = entry;
    }
    return result;
  };
  return copy(value, where, 0);
}

/** Copies own enumerable properties of `update` onto `target`, skipping prototype keys. */
export function mergeShallow(
  target: Record<string, unknown>,
  update: Record<string, unknown>,
): Record<string, unknown> {
  for (const key of Object.keys(update)) {
    if (isForbiddenKey(key)) continue;
    target[key] = update[key];
  }
  return target;
}
