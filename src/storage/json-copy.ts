/**
 * Inert JSON copies for the stores: a value goes in and comes out as plain objects, arrays,
 * strings, finite numbers, booleans and null (JSON semantics: `undefined` dropped, Dates as ISO
 * strings, class instances as their enumerable fields), so nothing stored is shared with the caller.
 */
import { AgentError } from '../core/agent-error.js';
import { messageOf } from '../util/message-of.js';

/** Serialises a value for storage; a value JSON cannot hold (a cycle, a BigInt) is STORAGE_ERROR. */
export function toStoredJson(value: unknown, what: string): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    throw new AgentError('STORAGE_ERROR', `${what} cannot be stored as JSON: ${messageOf(error)}`, {
      cause: error,
    });
  }
  if (text === undefined)
    throw new AgentError('STORAGE_ERROR', `${what} cannot be stored as JSON: it is not a JSON value`);
  return text;
}

/** Parses stored JSON; corrupt data is STORAGE_ERROR naming what was read. */
export function fromStoredJson<T>(text: string, what: string): T {
  try {
    return JSON.parse(text) as T;
  } catch (error) {
    throw new AgentError('STORAGE_ERROR', `${what} is corrupt: ${messageOf(error)}`, { cause: error });
  }
}

/** An independent inert copy of a value. */
export function inertCopy<T>(value: T, what: string): T {
  return fromStoredJson<T>(toStoredJson(value, what), what);
}
