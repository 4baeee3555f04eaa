/** JSON helpers for untrusted text and values: caps, no prototype keys, inert results. */
import { AgentError } from '../errors/agent-error.js';

const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);

export interface JsonLimits {
  /** Largest text in characters (default 8 MiB). */
  maxLength?: number;
  /** Deepest nesting (default 64). */
  maxDepth?: number;
}

/** JSON.parse with a size cap, a depth cap and prototype keys dropped. Throws AgentError. */
export function parseJsonSafely(text: string, limits: JsonLimits = {}, where = 'JSON'): unknown {
  const maxLength = limits.maxLength ?? 8 * 1024 * 1024;
  if (text.length > maxLength) {
    throw new AgentError('INPUT_TOO_LARGE', `${where} is ${text.length} characters, over the ${maxLength} limit`);
  }
  checkTextDepth(text, limits.maxDepth ?? 64, where);
  try {
    return JSON.parse(text, (key, value) => (FORBIDDEN.has(key) ? undefined : value));
  } catch (error) {
    throw new AgentError('INPUT_INVALID', `${where} is not valid JSON: ${(error as Error).message}`);
  }
}

function checkTextDepth(text: string, maxDepth: number, where: string): void {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index);
    if (inString) {
      if (char === 92) index++;
      else if (char === 34) inString = false;
    } else if (char === 34) inString = true;
    else if (char === 91 || char === 123) {
      if (++depth > maxDepth) throw new AgentError('INPUT_TOO_LARGE', `${where} nests deeper than ${maxDepth} levels`);
    } else if (char === 93 || char === 125) depth--;
  }
}

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
    for (const key in item) {
      if (!Object.hasOwn(item, key) || FORBIDDEN.has(key)) continue;
      const entry = copy((item as Record<string, unknown>)[key], path, depth + 1);
      if (entry !== undefined) result[key] = entry;
    }
    return result;
  };
  return copy(value, where, 0);
}

/** Copies own enumerable properties of `update` onto `target`, skipping prototype keys. */
export function mergeShallow(target: Record<string, unknown>, update: Record<string, unknown>): Record<string, unknown> {
  for (const key of Object.keys(update)) {
    if (FORBIDDEN.has(key)) continue;
    target[key] = update[key];
  }
  return target;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
