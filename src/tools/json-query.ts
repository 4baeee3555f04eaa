/**
 * `json.query {value, path}` → `{result}`: a dotted/indexed path (`a.b[0].c`, `items[-1]`,
 * `["odd key"]`, optional leading `$`) into a JSON value. Only own properties are read, and the
 * keys `__proto__`, `constructor` and `prototype` are refused, so no prototype is reachable.
 * A path that leads nowhere gives `{result: null, found: false}`.
 */
import { AgentError } from '../core/agent-error.js';
import type { ActionDefinition } from '../core/action.js';
import { isForbiddenKey } from '../util/forbidden-keys.js';
import { parseJsonSafely } from '../util/untrusted-json.js';
import { quoteText } from '../util/cut-text.js';

type Segment = string | number;

/** Splits a path into keys and indexes; a malformed path is an error message. */
export function parseJsonPath(path: string): Segment[] | { error: string } {
  const segments: Segment[] = [];
  let rest = path.trim().replace(/^\$/, '');
  if (rest.length > 1000) return { error: 'path too long' };
  while (rest.length > 0) {
    let match: RegExpExecArray | null;
    if ((match = /^\.?([A-Za-z0-9_$-][^.[\]]*)/.exec(rest)) !== null) {
      segments.push(match[1]!);
    } else if ((match = /^\[\s*(-?\d+)\s*\]/.exec(rest)) !== null) {
      segments.push(Number(match[1]));
    } else if ((match = /^\[\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)')\s*\]/.exec(rest)) !== null) {
      segments.push((match[1] ?? match[2]!).replace(/\\(.)/g, '$1'));
    } else {
      return { error: `malformed path near ${quoteText(rest, 20)}` };
    }
    rest = rest.slice(match[0].length);
  }
  return segments;
}

/** Follows a parsed path; `found: false` when a step is missing. */
export function queryJson(value: unknown, segments: Segment[]): { found: boolean; result: unknown } {
  let current = value;
  for (const segment of segments) {
    if (Array.isArray(current)) {
      const index = typeof segment === 'number' ? segment : /^-?\d+$/.test(segment) ? Number(segment) : NaN;
      const position = index < 0 ? current.length + index : index;
      if (!Number.isInteger(position) || position < 0 || position >= current.length)
        return { found: false, result: null };
      current = current[position];
    } else if (typeof current === 'object' && current !== null) {
      const key = String(segment);
      if (isForbiddenKey(key) || !Object.hasOwn(current, key)) return { found: false, result: null };
      current = (current as Record<string, unknown>)[key];
    } else {
      return { found: false, result: null };
    }
  }
  return { found: true, result: current === undefined ? null : current };
}

/** The `json.query` tool. A `value` given as a JSON string is parsed first. */
export function jsonQuery(): ActionDefinition<{ value?: unknown; path?: unknown }> {
  return {
    name: 'json.query',
    description:
      'Read a value at a path such as "a.b[0].c" inside a JSON value. Returns {result} (null when the path is missing).',
    parameters: {
      type: 'object',
      properties: {
        value: { description: 'The JSON value (or a JSON string) to read from' },
        path: { type: 'string', maxLength: 1000, description: 'Dotted/indexed path, e.g. "items[0].name"' },
      },
      required: ['value', 'path'],
      additionalProperties: false,
    },
    sideEffects: false,
    run(params) {
      if (typeof params.path !== 'string')
        throw new AgentError('INVALID_PARAMS', 'json.query needs a string "path"', { field: 'path' });
      const segments = parseJsonPath(params.path);
      if (!Array.isArray(segments))
        throw new AgentError('INVALID_PARAMS', `json.query: ${segments.error}`, { field: 'path' });
      for (const segment of segments) {
        if (typeof segment === 'string' && isForbiddenKey(segment)) {
          throw new AgentError('FORBIDDEN', `json.query: the key '${segment}' is not allowed`, { field: 'path' });
        }
      }
      let value = params.value;
      if (typeof value === 'string' && /^\s*[[{]/.test(value)) {
        const parsed = parseJsonSafely(value);
        if (parsed.ok) value = parsed.value;
      }
      return queryJson(value, segments);
    },
  };
}
