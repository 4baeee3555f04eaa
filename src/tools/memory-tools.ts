/**
 * `memory.store {key, value}` → `{stored: true}` and `memory.retrieve {key}` → `{value}` over the
 * run's memory (`context.memory`, a Map the engine saves with checkpoints, so it survives an
 * interrupt and resume). Keys and values are capped; values must be JSON.
 */
import { AgentError } from '../core/agent-error.js';
import type { ActionDefinition } from '../core/action.js';

/** Caps on run memory. */
export const MEMORY_LIMITS = { maxKeyLength: 256, maxValueBytes: 64 * 1024, maxEntries: 1000 } as const;

/** The `memory.store` tool. */
export function memoryStore(): ActionDefinition<{ key?: unknown; value?: unknown }> {
  return {
    name: 'memory.store',
    description: 'Store a value under a key in the run memory, for later steps. Returns {stored: true}.',
    parameters: {
      type: 'object',
      properties: {
        key: {
          type: 'string',
          minLength: 1,
          maxLength: MEMORY_LIMITS.maxKeyLength,
          description: 'Name to store the value under',
        },
        value: { description: 'Any JSON value' },
      },
      required: ['key', 'value'],
      additionalProperties: false,
    },
    sideEffects: false,
    run(params, context) {
      const key = checkKey(params.key);
      let serialised: string | undefined;
      try {
        serialised = JSON.stringify(params.value);
      } catch {
        serialised = undefined;
      }
      if (serialised === undefined)
        throw new AgentError('INVALID_PARAMS', 'memory.store needs a JSON "value"', { field: 'value' });
      if (serialised.length > MEMORY_LIMITS.maxValueBytes) {
        throw new AgentError(
          'INPUT_TOO_LARGE',
          `memory.store value too large (${serialised.length} characters; limit ${MEMORY_LIMITS.maxValueBytes})`,
          { field: 'value' },
        );
      }
      if (!context.memory.has(key) && context.memory.size >= MEMORY_LIMITS.maxEntries) {
        throw new AgentError('INPUT_TOO_LARGE', `run memory is full (${MEMORY_LIMITS.maxEntries} keys)`, {
          field: 'key',
        });
      }
      // Store a copy: later changes to the caller's object must not change the memory.
      context.memory.set(key, JSON.parse(serialised));
      return { stored: true };
    },
  };
}

/** The `memory.retrieve` tool; `{value: null}` when the key is absent. */
export function memoryRetrieve(): ActionDefinition<{ key?: unknown }> {
  return {
    name: 'memory.retrieve',
    description: 'Read the value stored under a key in the run memory. Returns {value} (null when absent).',
    parameters: {
      type: 'object',
      properties: { key: { type: 'string', minLength: 1, maxLength: MEMORY_LIMITS.maxKeyLength } },
      required: ['key'],
      additionalProperties: false,
    },
    sideEffects: false,
    run(params, context) {
      const key = checkKey(params.key);
      return { value: context.memory.has(key) ? context.memory.get(key) : null };
    },
  };
}

function checkKey(key: unknown): string {
  if (typeof key !== 'string' || key.length === 0)
    throw new AgentError('INVALID_PARAMS', 'memory needs a non-empty string "key"', { field: 'key' });
  if (key.length > MEMORY_LIMITS.maxKeyLength) {
    throw new AgentError('INPUT_TOO_LARGE', `memory key too long (limit ${MEMORY_LIMITS.maxKeyLength} characters)`, {
      field: 'key',
    });
  }
  return key;
}
