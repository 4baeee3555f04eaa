/**
 * The JSON Schema contract: a schema is plain JSON; a compiled schema validates instances and
 * reports errors with their place. Implemented by src/schema/, named by actions, the spec and the
 * engine. Part of the contracts layer: imports nothing from src/.
 */

export type JsonSchema = Record<string, unknown>;

export interface SchemaError {
  message: string;
  /** JSON pointer into the instance, e.g. `/items/0/name` ('' for the root). */
  path: string;
  /** Dotted form, e.g. `items[0].name` ('' for the root). */
  dotted_path: string;
  keyword: string;
  type: string;
}

export interface CompiledSchema {
  readonly schema: JsonSchema;
  validate(instance: unknown, options?: { coerce?: boolean }): { valid: boolean; errors: SchemaError[] };
}
