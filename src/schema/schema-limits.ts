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
  /** Longest chain of subschemas applied in place (`$ref` → `allOf` → `$ref` …) (32). */
  maxSchemaChain: number;
  /** Longest `pattern` / `patternProperties` source (4,096). */
  maxPatternLength: number;
  /** Deepest nesting of objects and arrays in a validated instance (64). */
  maxInstanceDepth: number;
  /** Most values (objects, arrays, scalars) in a validated instance (100,000). */
  maxInstanceNodes: number;
  /** Most characters in all strings and keys of a validated instance (1 MiB). */
  maxInstanceChars: number;
  /**
   * Most validation work units for one instance (200,000): a subschema applied to a value, a
   * `required` name, 8 steps of the pattern matcher, a quarter character checked by a format,
   * 64 characters hashed for enum/const/uniqueItems. The default keeps one validation around
   * 100 ms on a shared 2-core machine, so a long string against a pattern may be refused (about
   * 300,000 characters of `^\p{L}+$` fit; 50,000 characters of `format: uri`).
   */
  maxValidationWork: number;
  /** Most errors reported for one instance (50); the rest are counted, not kept. */
  maxErrors: number;
  /** Longest error message (300 characters). */
  maxErrorMessageChars: number;
  /** Deepest nesting of applied subschemas while validating (512). */
  maxValidationDepth: number;
}

export const DEFAULT_SCHEMA_LIMITS: Readonly<SchemaLimits> = Object.freeze({
  maxSchemaBytes: 256 * 1024,
  maxSchemaDepth: 64,
  maxSchemaExpansion: 10_000,
  maxSchemaChain: 32,
  maxPatternLength: 4096,
  maxInstanceDepth: 64,
  maxInstanceNodes: 100_000,
  maxInstanceChars: 1024 * 1024,
  maxValidationWork: 200_000,
  maxErrors: 50,
  maxErrorMessageChars: 300,
  maxValidationDepth: 512,
});
