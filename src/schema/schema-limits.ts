/**
 * SchemaLimits: the caps that keep untrusted schemas and instances cheap to check. Every cap is
 * configurable by the host; the defaults suit agent files and model output.
 */
export interface SchemaLimits {
  /** Largest schema, as serialized JSON characters, including each referenced schema (256 KiB). */
  maxSchemaBytes: number;
  /** Deepest nesting of objects and arrays in a schema document (64). */
  maxSchemaDepth: number;
  /** Most subschemas one subschema may apply to the same instance through `$ref`/`allOf`/… (10,000). */
  maxSchemaExpansion: number;
  /** Longest `pattern` / `patternProperties` source (4,096). */
  maxPatternLength: number;
  /** Deepest nesting of objects and arrays in a validated instance (64). */
  maxInstanceDepth: number;
  /** Most values (objects, arrays, scalars) in a validated instance (100,000). */
  maxInstanceNodes: number;
  /** Most characters in all strings and keys of a validated instance (1 MiB). */
  maxInstanceChars: number;
}

export const DEFAULT_SCHEMA_LIMITS: Readonly<SchemaLimits> = Object.freeze({
  maxSchemaBytes: 256 * 1024,
  maxSchemaDepth: 64,
  maxSchemaExpansion: 10_000,
  maxPatternLength: 4096,
  maxInstanceDepth: 64,
  maxInstanceNodes: 100_000,
  maxInstanceChars: 1024 * 1024,
});
