/**
 * schemaSuggestions: TEA's fix hints for schema errors ("Add missing required field at path: …",
 * "Fix type at path: …"), plus one per other failing keyword, without duplicates.
 */
import type { SchemaError } from '../core/json-schema.js';

/** One suggestion per distinct problem, in error order. */
export function schemaSuggestions(errors: readonly SchemaError[]): string[] {
  const suggestions = new Set<string>();
  for (const error of errors) {
    const place = error.dotted_path === '' ? 'root' : error.dotted_path;
    if (error.keyword === 'required') suggestions.add(`Add missing required field at path: ${place}`);
    else if (error.keyword === 'type') suggestions.add(`Fix type at path: ${place}`);
    else if (error.keyword === 'additionalProperties')
      suggestions.add(`Remove the property not allowed at path: ${place}`);
    else suggestions.add(`Fix the value at path: ${place} (${error.keyword})`);
  }
  return [...suggestions];
}
