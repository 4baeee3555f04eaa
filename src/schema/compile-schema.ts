/**
 * compileSchema: turns an untrusted JSON Schema (from an agent file, a host, a model) into a
 * `CompiledSchema` once, at agent load, so that every problem with the schema is found then and
 * validating is a pure, bounded operation afterwards.
 *
 * Compile: copy with depth and size caps → rewrite `$ref`s that name registered schemas →
 * dereference (@cfworker/json-schema, used for nothing else) pulling in only the registered
 * schemas that are referenced → check keyword shapes and compile every pattern for the
 * linear-time engine (`prepareKeywords`) → check the `$ref` graph (unresolved, in-place cycles,
 * expansion, chain length). Every failure is `SCHEMA_INVALID` naming the node, field and the
 * place inside the schema.
 *
 * Validate: copy the instance with caps (INPUT_TOO_LARGE, thrown) → optional coercion → validate
 * with tea-edge's bounded validator (`validateInstance`: counted work, capped errors and
 * messages, linear regexes) → leaf errors with JSON-pointer and dotted paths. Too much work or
 * nesting is INPUT_TOO_LARGE (thrown) with `details.limit` 'work' or 'depth'.
 *
 * Registered schemas (the host's, and the agent's top-level `schemas:`) are referenced by name:
 * `$ref: person`, `$ref: '#/schemas/person'`, `$ref: 'person#/$defs/address'`, or by their own
 * absolute `$id`. There is no network or file access.
 *
 * @example
 * const person = compileSchema({type: 'object', required: ['name']}, {where: {node: 'check'}});
 * person.validate({}).errors[0].keyword // 'required'
 */
import { dereference, type Schema } from '@cfworker/json-schema';
import type { CompiledSchema, JsonSchema, SchemaError } from '../core/json-schema.js';
import { AgentError, type ErrorLocation } from '../core/agent-error.js';
import { checkSchemaGraph, locationOf, referenceOf, schemaNodes, type SchemaLookup } from './check-schema-graph.js';
import { coerceInstance } from './coerce-instance.js';
import { copyJson } from './copy-json.js';
import { prepareKeywords, type PreparedSchemas } from './prepare-keywords.js';
import { DEFAULT_SCHEMA_LIMITS, type SchemaLimits } from './schema-limits.js';
import { FormatPatterns } from './string-formats.js';
import { toSchemaErrors } from './to-schema-errors.js';
import { validateInstance, ValidationLimitExceeded, type Draft } from './validate-instance.js';
import { messageOf } from '../util/message-of.js';

export interface CompileSchemaOptions {
  /** Where the schema is declared, for error messages. */
  where: ErrorLocation;
  /** Schemas that `$ref` may name: the agent's `schemas:` and the host's, by name or URI. */
  registry?: Record<string, JsonSchema>;
  limits?: Partial<SchemaLimits>;
}

/** The base URI under which schemas without an absolute `$id` are registered (never fetched). */
export const SCHEMA_BASE_URI = 'https://tea-edge.invalid/schemas/';
const ROOT_URI = `${SCHEMA_BASE_URI}__root__`;

/** Compiles `schema`; throws AgentError SCHEMA_INVALID when it is unusable or unsafe. */
export function compileSchema(schema: unknown, options: CompileSchemaOptions): CompiledSchema {
  const limits: SchemaLimits = { ...DEFAULT_SCHEMA_LIMITS, ...options.limits };
  const fail = (message: string, details: Record<string, unknown> = {}): never => {
    throw new AgentError('SCHEMA_INVALID', message, { ...options.where, details });
  };
  if (typeof schema === 'boolean')
    return createCompiled(schema, schema, '7', Object.create(null), new WeakMap(), limits, options.where);
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema))
    fail('a JSON Schema must be an object or a boolean');

  const registry = registryUris(options.registry ?? {});
  const root = copySchema(schema, 'the schema', limits, fail);
  rewriteReferences(root, registry);
  const lookup: SchemaLookup = Object.create(null);
  dereferenceInto(root, ROOT_URI, lookup, fail);
  includeReferencedSchemas(lookup, registry, limits, fail);

  const nodes = schemaNodes(lookup);
  const keywords = prepareKeywords(nodes, limits.maxPatternLength);
  if ('problem' in keywords) {
    const at = describeLocation(locationOf(keywords.node));
    fail(`${keywords.problem.message} (at ${at})`, { keyword: keywords.problem.keyword, at });
  }
  const prepared = (keywords as { prepared: PreparedSchemas }).prepared;
  const graphProblem = checkSchemaGraph(lookup, nodes, {
    maxExpansion: limits.maxSchemaExpansion,
    maxChain: limits.maxSchemaChain,
  });
  if (graphProblem !== undefined) {
    const at = describeLocation(graphProblem.at);
    if (graphProblem.kind === 'unresolved') {
      fail(
        `unresolved $ref ${JSON.stringify(graphProblem.reference)} at ${at}: declare it under the agent's 'schemas:' (no network or file access)`,
        { reference: graphProblem.reference, at },
      );
    }
    if (graphProblem.kind === 'cycle')
      fail(`$ref cycle that never reaches a smaller part of the value, at ${at}`, { at });
    if (graphProblem.kind === 'chain') {
      fail(
        `chain of more than ${limits.maxSchemaChain} subschemas applied in place ($ref, allOf, anyOf, …) to one value, at ${at}`,
        { at, limit: limits.maxSchemaChain },
      );
    }
    fail(`schema expands to more than ${limits.maxSchemaExpansion} subschemas applied to one value, at ${at}`, { at });
  }
  return createCompiled(schema as JsonSchema, root, draftOf(root), lookup, prepared, limits, options.where);
}

function createCompiled(
  original: JsonSchema | boolean,
  root: Record<string, unknown> | boolean,
  draft: Draft,
  lookup: SchemaLookup,
  prepared: PreparedSchemas,
  limits: SchemaLimits,
  where: ErrorLocation,
): CompiledSchema {
  const formats = new FormatPatterns();
  const budget = {
    maxWork: limits.maxValidationWork,
    maxErrors: limits.maxErrors,
    maxMessageChars: limits.maxErrorMessageChars,
    maxDepth: limits.maxValidationDepth,
  };
  return {
    schema: typeof original === 'boolean' ? (original ? {} : { not: {} }) : original,
    validate(instance: unknown, validateOptions: { coerce?: boolean } = {}): { valid: boolean; errors: SchemaError[] } {
      const copied = copyJson(instance, {
        maxDepth: limits.maxInstanceDepth,
        maxNodes: limits.maxInstanceNodes,
        maxChars: limits.maxInstanceChars,
      });
      if (!copied.ok) {
        throw new AgentError(
          'INPUT_TOO_LARGE',
          `value too large to validate: ${copied.overflow.limit} limit reached at '${copied.overflow.path}'`,
          { ...where, details: { ...copied.overflow } },
        );
      }
      try {
        const value =
          validateOptions.coerce === true
            ? coerceInstance(copied.value, root, lookup, { left: limits.maxValidationWork })
            : copied.value;
        const result = validateInstance(value, root, draft, lookup, prepared, formats, budget);
        return result.valid ? { valid: true, errors: [] } : { valid: false, errors: toSchemaErrors(result, value) };
      } catch (error) {
        if (!(error instanceof ValidationLimitExceeded)) throw error;
        const limit =
          error.limit === 'work'
            ? `more than ${limits.maxValidationWork} units of work`
            : `subschemas nested deeper than ${limits.maxValidationDepth}`;
        throw new AgentError(
          'INPUT_TOO_LARGE',
          `value too costly to validate against this schema: ${limit} (stopped at '${error.at}')`,
          { ...where, details: { limit: error.limit, path: error.at } },
        );
      }
    },
  };
}

/** name → absolute URI and schema, for every registered schema. */
function registryUris(registry: Record<string, JsonSchema>): Map<string, { uri: string; schema: unknown }> {
  const entries = new Map<string, { uri: string; schema: unknown }>();
  for (const name of Object.keys(registry)) {
    const schema = registry[name];
    const ownId = typeof schema === 'object' && schema !== null ? (schema as Record<string, unknown>).$id : undefined;
    const uri =
      typeof ownId === 'string' && /^[a-z][a-z0-9+.-]*:/i.test(ownId)
        ? ownId.split('#')[0]!
        : /^[a-z][a-z0-9+.-]*:/i.test(name)
          ? name
          : SCHEMA_BASE_URI + encodeURIComponent(name);
    entries.set(name, { uri, schema });
  }
  return entries;
}

function copySchema(
  schema: unknown,
  label: string,
  limits: SchemaLimits,
  fail: (message: string) => never,
): Record<string, unknown> {
  const copied = copyJson(schema, {
    maxDepth: limits.maxSchemaDepth,
    maxNodes: limits.maxSchemaBytes,
    maxChars: limits.maxSchemaBytes,
  });
  if (!copied.ok)
    fail(
      `${label} is nested deeper or is larger than allowed (${copied.overflow.limit} limit at '${copied.overflow.path}')`,
    );
  const copy = (copied as { value: unknown }).value as Record<string, unknown>;
  if (JSON.stringify(copy).length > limits.maxSchemaBytes)
    fail(`${label} is larger than ${limits.maxSchemaBytes} bytes`);
  return copy;
}

/** Points `$ref`s that name a registered schema at its URI; walks every object in the copy. */
function rewriteReferences(value: unknown, registry: Map<string, { uri: string }>): void {
  if (typeof value !== 'object' || value === null) return;
  if (Array.isArray(value)) {
    for (const item of value) rewriteReferences(item, registry);
    return;
  }
  const node = value as Record<string, unknown>;
  if (typeof node.$ref === 'string') {
    const reference = node.$ref;
    const hash = reference.indexOf('#');
    const base = hash === -1 ? reference : reference.slice(0, hash);
    const fragment = hash === -1 ? '' : reference.slice(hash);
    const named = /^#\/schemas\/([^/]+)(.*)$/.exec(reference);
    if (named !== null && registry.has(decodeToken(named[1]!))) {
      node.$ref = registry.get(decodeToken(named[1]!))!.uri + (named[2] === '' ? '' : `#${named[2]}`);
    } else if (base !== '' && registry.has(base)) {
      node.$ref = registry.get(base)!.uri + fragment;
    }
  }
  for (const key of Object.keys(node)) if (!DATA_KEYWORDS.has(key)) rewriteReferences(node[key], registry);
}

/** Keywords whose values are instance data, not schemas: a `$ref` key inside them is just data. */
const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'examples']);

function decodeToken(token: string): string {
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}

function dereferenceInto(
  schema: Record<string, unknown>,
  uri: string,
  lookup: SchemaLookup,
  fail: (message: string) => never,
): void {
  try {
    dereference(schema as Schema, lookup as Record<string, Schema>, new URL(uri));
    if (lookup[uri] === undefined) lookup[uri] = schema;
  } catch (error) {
    fail(`the schema's identifiers are invalid: ${messageOf(error)}`);
  }
}

/** Adds, transitively, the registered schemas that some `$ref` points into. */
function includeReferencedSchemas(
  lookup: SchemaLookup,
  registry: Map<string, { uri: string; schema: unknown }>,
  limits: SchemaLimits,
  fail: (message: string) => never,
): void {
  const included = new Set<string>();
  let added = true;
  while (added) {
    added = false;
    for (const node of schemaNodes(lookup)) {
      const reference = referenceOf(node);
      if (reference === undefined || lookup[reference] !== undefined) continue;
      const base = reference.split('#')[0]!;
      for (const [name, entry] of registry) {
        if (entry.uri !== base || included.has(name)) continue;
        included.add(name);
        if (typeof entry.schema !== 'object' || entry.schema === null || Array.isArray(entry.schema))
          fail(`registered schema '${name}' is not an object`);
        const copy = copySchema(entry.schema, `registered schema '${name}'`, limits, fail);
        rewriteReferences(copy, registry);
        dereferenceInto(copy, entry.uri, lookup, fail);
        added = true;
      }
    }
  }
}

function draftOf(schema: Record<string, unknown>): Draft {
  const declared = typeof schema.$schema === 'string' ? schema.$schema : '';
  if (declared.includes('2020-12')) return '2020-12';
  if (declared.includes('2019-09')) return '2019-09';
  if (declared.includes('draft-04')) return '4';
  return '7';
}

/** `https://tea-edge.invalid/schemas/__root__#/properties/x` → `#/properties/x`. */
function describeLocation(uri: string): string {
  if (uri.startsWith(ROOT_URI)) return uri.slice(ROOT_URI.length) || '#';
  if (uri.startsWith(SCHEMA_BASE_URI)) return `schemas.${decodeURIComponent(uri.slice(SCHEMA_BASE_URI.length))}`;
  return uri;
}
