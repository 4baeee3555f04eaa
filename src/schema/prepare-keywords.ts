/**
 * prepareKeywords: the per-subschema work done once at load so that validating stays cheap and
 * safe. Every `pattern` and `patternProperties` key is compiled for the linear-time engine (a
 * source it cannot run is refused here, naming the pattern), `enum` becomes a set of canonical
 * keys and `const` one key, after the keyword shapes are checked (`checkSchemaKeywords`).
 */
import { canonicalKey } from './canonical-json.js';
import { checkSchemaKeywords, type KeywordProblem } from './check-schema-keywords.js';
import { compileSafePattern, PatternProblem, type SafePattern } from './safe-pattern.js';
import { cutText } from '../util/cut-text.js';

export interface PreparedKeywords {
  pattern?: SafePattern;
  patternProperties?: Array<[SafePattern, unknown]>;
  enumKeys?: Set<string>;
  /** The allowed values as shown in messages, built and clipped once (an enum can be huge). */
  enumText?: string;
  constKey?: string;
  constText?: string;
}

export type PreparedSchemas = WeakMap<object, PreparedKeywords>;

type SchemaNode = Record<string, unknown>;

/** Most estimated regex program steps over all patterns of one schema (compile time stays < 1 s). */
export const MAX_TOTAL_PATTERN_SIZE = 30_000;

/** Prepares every node; returns the first problem with the node it is in instead. */
export function prepareKeywords(
  nodes: SchemaNode[],
  maxPatternLength: number,
): { prepared: PreparedSchemas } | { problem: KeywordProblem; node: SchemaNode } {
  const prepared: PreparedSchemas = new WeakMap();
  const compiled = new Map<string, SafePattern>();
  let totalSize = 0;
  const compile = (source: unknown, keyword: string): SafePattern | KeywordProblem => {
    if (typeof source !== 'string') return { keyword, message: `'${keyword}' must be a string` };
    const known = compiled.get(source);
    if (known !== undefined) return known;
    try {
      const pattern = compileSafePattern(source, {}, maxPatternLength);
      compiled.set(source, pattern);
      totalSize += pattern.size;
      if (totalSize > MAX_TOTAL_PATTERN_SIZE)
        return {
          keyword,
          message: `the schema's patterns together are too large (more than ${MAX_TOTAL_PATTERN_SIZE} steps once repetitions are expanded), at ${keyword} ${JSON.stringify(clip(source))}`,
        };
      return pattern;
    } catch (error) {
      if (!(error instanceof PatternProblem)) throw error;
      return { keyword, message: `${keyword} ${JSON.stringify(clip(source))} cannot be used: ${error.message}` };
    }
  };
  for (const node of nodes) {
    const shapeProblem = checkSchemaKeywords(node);
    if (shapeProblem !== undefined) return { problem: shapeProblem, node };
    const extras: PreparedKeywords = {};
    if ('pattern' in node) {
      const pattern = compile(node.pattern, 'pattern');
      if (!('test' in pattern)) return { problem: pattern, node };
      extras.pattern = pattern;
    }
    const patternProperties = node.patternProperties;
    if (typeof patternProperties === 'object' && patternProperties !== null) {
      extras.patternProperties = [];
      for (const source of Object.keys(patternProperties)) {
        const pattern = compile(source, 'patternProperties');
        if (!('test' in pattern)) return { problem: pattern, node };
        extras.patternProperties.push([pattern, (patternProperties as SchemaNode)[source]]);
      }
    }
    if (Array.isArray(node.enum)) {
      extras.enumKeys = new Set(node.enum.map(canonicalKey));
      extras.enumText = clip(JSON.stringify(node.enum));
    }
    if ('const' in node) {
      extras.constKey = canonicalKey(node.const);
      extras.constText = clip(JSON.stringify(node.const) ?? 'null');
    }
    prepared.set(node, extras);
  }
  return { prepared };
}

function clip(text: string): string {
  return cutText(text, 80);
}
