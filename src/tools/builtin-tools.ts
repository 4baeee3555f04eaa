/** The built-in tools usable by any agent on any runtime (docs/spec.md#63-reasonreact). */
import type { ActionDefinition } from '../core/action.js';
import { httpGet } from './http-get.js';
import { jsonQuery } from './json-query.js';
import { mathCalculate } from './math-calculate.js';
import { memoryRetrieve, memoryStore } from './memory-tools.js';

/** `memory.store`, `memory.retrieve`, `math.calculate`, `json.query`, `http.get`. */
export function builtinTools(): ActionDefinition[] {
  return [memoryStore(), memoryRetrieve(), mathCalculate(), jsonQuery(), httpGet()];
}
