/**
 * toSchemaErrors: turns the validator's leaf errors into the errors users see, with a JSON
 * pointer (`/items/0/name`) and a dotted path (`items[0].name`, using the instance to tell array
 * indexes from keys). Duplicates are dropped; when errors were left out past the cap, a last
 * entry says how many.
 */
import type { SchemaError } from '../core/json-schema.js';
import type { ValidationOutcome } from './validate-instance.js';

/** The user-facing errors of one failed validation, deduplicated, in validator order. */
export function toSchemaErrors(outcome: ValidationOutcome, instance: unknown): SchemaError[] {
  const errors: SchemaError[] = [];
  const seen = new Set<string>();
  for (const error of outcome.errors) {
    const key = `${error.pointer}\u0000${error.keyword}\u0000${error.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    errors.push({
      message: error.message,
      path: error.pointer,
      dotted_path: dottedPathOf(error.pointer, instance),
      keyword: error.keyword,
      type: 'validation_error',
    });
  }
  if (outcome.truncated) {
    errors.push({
      message: `More errors were found; only the first ${outcome.errors.length} are reported.`,
      path: '',
      dotted_path: '',
      keyword: 'maxErrors',
      type: 'validation_error',
    });
  }
  return errors;
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
