/**
 * coerceInstance: TEA's validation-only type coercion. Guided by the schema's `type`, a string
 * becomes an integer ("42"), a number ("4.5", "1e3") or a boolean ("true"/"yes"/"1",
 * "false"/"no"/"0"), and a number or boolean becomes a string where a string is expected. It
 * follows `$ref`, `allOf`, `properties`, `additionalProperties`, `items` and `prefixItems`.
 * Values that do not convert are left as they are (the validator then reports them). The input
 * is never modified: objects and arrays on the way to a converted value are copied.
 *
 * Differs from TEA on purpose: a string that is not a boolean word stays a string where a
 * boolean is expected (TEA turns any such string into `false`, which then validates).
 */
import type { SchemaLookup } from './check-schema-graph.js';
import { referenceOf } from './check-schema-graph.js';
import { ValidationLimitExceeded } from './validate-instance.js';

/** Work left for one coercion: one unit per (subschema, value) visited, like validation. */
export interface CoercionMeter {
  left: number;
}

// Unambiguous shapes (each character can be consumed by one part only), so RegExp cannot
// backtrack on them; `\d+\.?\d*` was quadratic (20,000 digits and an 'x': 3 s).
const INTEGER = /^\s*[-+]?\d+\s*$/;
const NUMBER = /^\s*[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?\s*$/;
/** Longer strings are never numbers worth converting (and are not scanned at all). */
const MAX_NUMBER_TEXT = 400;
const TRUE_WORDS = new Set(['true', 'yes', '1']);
const FALSE_WORDS = new Set(['false', 'no', '0']);

/** A coerced copy of `value` for validation against `schema`. */
export function coerceInstance(
  value: unknown,
  schema: unknown,
  lookup: SchemaLookup,
  meter: CoercionMeter,
  depth = 0,
): unknown {
  if (typeof schema !== 'object' || schema === null || depth > 256) return value;
  meter.left -= 1;
  if (meter.left < 0) throw new ValidationLimitExceeded('work', '');
  const node = schema as Record<string, unknown>;
  let result = value;
  const reference = referenceOf(node);
  if (reference !== undefined) result = coerceInstance(result, lookup[reference], lookup, meter, depth + 1);
  if (Array.isArray(node.allOf)) {
    for (const part of node.allOf) result = coerceInstance(result, part, lookup, meter, depth + 1);
  }
  if (node.type !== undefined) result = coerceType(result, Array.isArray(node.type) ? node.type : [node.type]);
  if (Array.isArray(result)) return coerceItems(result, node, lookup, meter, depth);
  if (typeof result === 'object' && result !== null)
    return coerceProperties(result as Record<string, unknown>, node, lookup, meter, depth);
  return result;
}

function coerceType(value: unknown, types: unknown[]): unknown {
  if (types.some((type) => matchesType(value, type))) return value;
  for (const type of types) {
    const converted = convert(value, type);
    if (converted !== undefined) return converted;
  }
  return value;
}

function matchesType(value: unknown, type: unknown): boolean {
  switch (type) {
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'number':
      return typeof value === 'number';
    case 'boolean':
      return typeof value === 'boolean';
    case 'string':
      return typeof value === 'string';
    case 'null':
      return value === null;
    case 'array':
      return Array.isArray(value);
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    default:
      return false;
  }
}

function convert(value: unknown, type: unknown): unknown {
  if (type === 'string') return typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined;
  if (typeof value !== 'string') return undefined;
  if ((type === 'integer' || type === 'number') && value.length > MAX_NUMBER_TEXT) return undefined;
  if (type === 'integer' && INTEGER.test(value)) return Number(value);
  if (type === 'number' && NUMBER.test(value)) return Number(value);
  if (type === 'boolean') {
    const word = value.trim().toLowerCase();
    if (TRUE_WORDS.has(word)) return true;
    if (FALSE_WORDS.has(word)) return false;
  }
  return undefined;
}

function coerceItems(
  items: unknown[],
  node: Record<string, unknown>,
  lookup: SchemaLookup,
  meter: CoercionMeter,
  depth: number,
): unknown[] {
  const tuple = Array.isArray(node.prefixItems) ? node.prefixItems : Array.isArray(node.items) ? node.items : undefined;
  const rest = Array.isArray(node.items) ? undefined : node.items;
  if (tuple === undefined && rest === undefined) return items;
  let copy: unknown[] | undefined;
  items.forEach((item, index) => {
    const itemSchema = tuple !== undefined && index < tuple.length ? tuple[index] : rest;
    const coerced = coerceInstance(item, itemSchema, lookup, meter, depth + 1);
    if (coerced === item) return;
    copy ??= [...items];
    copy[index] = coerced;
  });
  return copy ?? items;
}

/** A copy with coerced property values, or the object itself when nothing changed. */
function coerceProperties(
  object: Record<string, unknown>,
  node: Record<string, unknown>,
  lookup: SchemaLookup,
  meter: CoercionMeter,
  depth: number,
): Record<string, unknown> {
  const properties =
    typeof node.properties === 'object' && node.properties !== null
      ? (node.properties as Record<string, unknown>)
      : undefined;
  const additional = node.additionalProperties;
  if (properties === undefined && typeof additional !== 'object') return object;
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(object)) {
    const propertySchema = properties !== undefined && Object.hasOwn(properties, key) ? properties[key] : additional;
    const value = coerceInstance(object[key], propertySchema, lookup, meter, depth + 1);
    if (value === object[key]) continue;
    copy ??= copyOf(object);
    if (key === '__proto__')
      Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true });
    else copy[key] = value;
  }
  return copy ?? object;
}

function copyOf(object: Record<string, unknown>): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(object)) {
    if (key === '__proto__')
      Object.defineProperty(copy, key, { value: object[key], enumerable: true, writable: true, configurable: true });
    else copy[key] = object[key];
  }
  return copy;
}
