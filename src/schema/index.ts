/**
 * JSON Schema for tea-edge: compile untrusted schemas once (with caps, linear-time regexes and
 * `$ref` checks), validate many times with leaf errors, a graded score and fix suggestions.
 */
export { compileSchema, SCHEMA_BASE_URI, type CompileSchemaOptions } from './compile-schema.js';
export { DEFAULT_SCHEMA_LIMITS, type SchemaLimits } from './schema-limits.js';
export { scoreFromErrors } from './score-from-errors.js';
export { schemaSuggestions } from './schema-suggestions.js';
export { compileSafePattern, PatternProblem, type SafePattern, type SafePatternFlags } from './safe-pattern.js';
