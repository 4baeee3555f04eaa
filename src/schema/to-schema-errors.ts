/**
 * toSchemaErrors: turns @cfworker/json-schema's output units into the leaf errors users see.
 * The validator reports each failure with its parents ("A subschema had errors.", "Property "x"
 * does not match schema."); only the innermost errors are kept. A `false` schema (what
 * `additionalProperties: false` produces) is reported as the parent's message at the
 * property's path. Paths become a JSON pointer (`/items/0/name`) and a dotted form
 * (`items[0].name`), the dotted form using the instance to tell array indexes from keys.
 */
import type { OutputUnit } from '@cfworker/json-schema';
import type { SchemaError } from '../actions/types.js';

/** The leaf errors of one validation, deduplicated, in validator order. */
export function toSchemaErrors(units: readonly OutputUnit[], instance: unknown): SchemaError[] {
  const errors: SchemaError[] = [];
  const seen = new Set<string>();
  for (let index = 0; index < units.length; index += 1) {
    const unit = units[index]!;
    const next = units[index + 1];
    let keyword = unit.keyword;
    let message = unit.error;
    if (unit.keyword === 'false') {
      const parent = units[index - 1];
      keyword = parent?.keyword ?? 'false';
      message = parent === undefined ? 'Value is not allowed here.' : falseSchemaMessage(parent);
    } else if (next !== undefined && (next.keyword === 'false' || next.keywordLocation.startsWith(unit.keywordLocation + '/'))) {
      continue;
    }
    const path = pointerOf(unit.instanceLocation);
    const key = `${path}\u0000${keyword}\u0000${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const dottedPath = dottedPathOf(path, instance);
    errors.push({ message, path, dotted_path: dottedPath, keyword, type: 'validation_error' });
  }
  return errors;
}

function falseSchemaMessage(parent: OutputUnit): string {
  const property = /^Property "(.*)" does not match/.exec(parent.error)?.[1];
  if (parent.keyword === 'additionalProperties' && property !== undefined) {
    return `Property "${property}" is not allowed (additionalProperties is false).`;
  }
  return property === undefined ? 'Value is not allowed here.' : `Property "${property}" is not allowed.`;
}

/** `#/a%20b/0` → `/a b/0` (a JSON pointer; '' for the root). */
export function pointerOf(instanceLocation: string): string {
  const raw = instanceLocation.startsWith('#') ? instanceLocation.slice(1) : instanceLocation;
  try {
    return decodeURI(raw).replace(/%23/g, '#');
  } catch {
    return raw;
  }
}

/** `/items/0/name` → `items[0].name`, reading the instance to tell indexes from keys. */
export function dottedPathOf(pointer: string, instance: unknown): string {
  if (pointer === '') return '';
  let dotted = '';
  let current: unknown = instance;
  for (const rawToken of pointer.slice(1).split('/')) {
    const token = rawToken.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(current) && /^\d+$/.test(token)) {
      dotted += `[${token}]`;
      current = current[Number(token)];
      continue;
    }
    const plain = /^[A-Za-z_$][\w$-]*$/.test(token);
    dotted += plain ? (dotted === '' ? token : `.${token}`) : `[${JSON.stringify(token)}]`;
    current = typeof current === 'object' && current !== null ? (current as Record<string, unknown>)[token] : undefined;
  }
  return dotted;
}
