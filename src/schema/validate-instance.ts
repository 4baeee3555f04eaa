/**
 * validateInstance: tea-edge's own JSON Schema validator (drafts 4, 7, 2019-09, 2020-12, the
 * keywords @cfworker/json-schema knows), run on schemas compiled by `compileSchema`. It exists
 * because the library cannot be bounded from outside: it matches `pattern`s and formats with
 * backtracking regexes, compares `enum` values and `uniqueItems` pairwise, keeps every failing
 * branch's errors, and recurses without a guard. Here:
 *
 * - every unit of work (a subschema applied to a value, a pattern or format run, a key built for
 *   `enum`/`const`/`uniqueItems`, a `required` name) is counted, and past `maxWork` validation
 *   stops with `ValidationLimitExceeded` (the caller turns it into a typed AgentError);
 * - patterns run on the linear-time matcher (`compileSafePattern`), compiled at load, their
 *   steps charged to the same budget;
 * - `enum` is a set of canonical keys, `uniqueItems` a set of item keys;
 * - at most `maxErrors` errors are kept, each message at most `maxMessageChars`; combinators
 *   (`anyOf`, `oneOf`, `not`, `if`, `contains`) probe their branches, stopping each at its first
 *   error, so a failing branch costs no memory;
 * - nesting of applied subschemas is capped at `maxDepth`.
 *
 * Only leaf errors are produced (no "a subschema had errors" parents).
 */
import { canonicalKey } from './canonical-json.js';
import type { SchemaLookup } from './check-schema-graph.js';
import { referenceOf } from './check-schema-graph.js';
import type { PreparedSchemas } from './prepare-keywords.js';
import { PatternStepsExceeded, type SafePattern } from './safe-pattern.js';
import { checkFormat, isKnownFormat, MAX_FORMAT_LENGTH, type FormatPatterns } from './string-formats.js';
import { codePointLength, hasType, isMultipleOf, typeName } from './value-checks.js';
import { cutText } from '../util/cut-text.js';

/**
 * Matcher steps per unit of validation work (a step is one NFA state visited or tested, about
 * 30–60 ns): the default 200,000 units allow 1.6 million steps, under about 100 ms.
 */
const STEPS_PER_UNIT = 8;

export type Draft = '4' | '7' | '2019-09' | '2020-12';

export interface ValidationBudget {
  maxWork: number;
  maxErrors: number;
  maxMessageChars: number;
  maxDepth: number;
}

export interface LeafError {
  /** JSON pointer into the instance ('' for the root). */
  pointer: string;
  keyword: string;
  message: string;
}

export interface ValidationOutcome {
  valid: boolean;
  errors: LeafError[];
  /** True when more errors existed than were kept. */
  truncated: boolean;
}

/** Thrown when validation needs more work or nesting than the budget allows. */
export class ValidationLimitExceeded extends Error {
  constructor(
    readonly limit: 'work' | 'depth',
    readonly at: string,
  ) {
    super(limit === 'work' ? 'validation work limit reached' : 'validation nesting limit reached');
  }
}

/** A linked instance path, turned into a pointer only when an error is recorded. */
interface Path {
  parent: Path | undefined;
  token: string | number;
}

/**
 * Where errors go. A probe (limit 1) only needs to know whether a branch fails; when nobody will
 * read its message (`detailed` false), no message or pointer is built at all.
 */
class Collector {
  readonly errors: LeafError[] = [];
  count = 0;
  constructor(
    readonly limit: number,
    readonly detailed: boolean,
  ) {}
  get full(): boolean {
    return this.count >= this.limit;
  }
}

type Node = Record<string, unknown>;
type Evaluated = Set<string | number>;

/**
 * Validates `instance` (already a bounded JSON copy) against `root`.
 * @example validateInstance(5, {type: 'string'}, ...).errors[0].keyword // 'type'
 */
export function validateInstance(
  instance: unknown,
  root: unknown,
  draft: Draft,
  lookup: SchemaLookup,
  prepared: PreparedSchemas,
  formats: FormatPatterns,
  budget: ValidationBudget,
): ValidationOutcome {
  const run = new Validation(draft, lookup, prepared, formats, budget);
  const collector = new Collector(budget.maxErrors + 1, true);
  run.apply(instance, root, undefined, collector, undefined, null);
  const truncated = collector.count > budget.maxErrors;
  return { valid: collector.count === 0, errors: collector.errors.slice(0, budget.maxErrors), truncated };
}

class Validation {
  private work = 0;
  private depth = 0;

  constructor(
    private readonly draft: Draft,
    private readonly lookup: SchemaLookup,
    private readonly prepared: PreparedSchemas,
    private readonly formats: FormatPatterns,
    private readonly budget: ValidationBudget,
  ) {}

  /** Applies `schema` to `value`; records errors in `out`; true when no error was recorded. */
  apply(
    value: unknown,
    schema: unknown,
    path: Path | undefined,
    out: Collector,
    evaluated: Evaluated | undefined,
    anchor: Node | null,
  ): boolean {
    this.charge(1, path);
    if (schema === true || schema === undefined) return true;
    if (schema === false) return this.fail(out, path, 'false', 'Value is not allowed here.');
    if (typeof schema !== 'object' || schema === null) return true;
    this.depth += 1;
    if (this.depth > this.budget.maxDepth) throw new ValidationLimitExceeded('depth', pointerOf(path));
    try {
      return this.applyObject(value, schema as Node, path, out, evaluated, anchor);
    } finally {
      this.depth -= 1;
    }
  }

  private applyObject(
    value: unknown,
    node: Node,
    path: Path | undefined,
    out: Collector,
    evaluated: Evaluated | undefined,
    outerAnchor: Node | null,
  ): boolean {
    const start = out.count;
    const anchor = outerAnchor === null && node.$recursiveAnchor === true ? node : outerAnchor;
    const tracksOwn = node.unevaluatedProperties !== undefined || node.unevaluatedItems !== undefined;
    const own: Evaluated | undefined = tracksOwn ? new Set() : evaluated;
    const done = (): boolean => out.count === start;

    if (node.$recursiveRef !== undefined && typeof node.__absolute_recursive_ref__ === 'string') {
      const target = this.lookup[node.__absolute_recursive_ref__] as Node | undefined;
      const dynamic = target !== undefined && target.$recursiveAnchor === true && anchor !== null ? anchor : target;
      if (!this.apply(value, dynamic, path, out, own, anchor) && out.full) return false;
    }
    const reference = referenceOf(node);
    if (reference !== undefined) {
      if (!this.apply(value, this.lookup[reference], path, out, own, anchor) && out.full) return false;
      if (this.draft === '4' || this.draft === '7') return done();
    }
    if (!this.checkGeneric(value, node, path, out)) return false;
    if (!this.applyCombinators(value, node, path, out, own, anchor)) return false;

    if (typeof value === 'string') this.checkString(value, node, path, out);
    else if (typeof value === 'number') this.checkNumber(value, node, path, out);
    else if (Array.isArray(value)) this.checkArray(value, node, path, out, own, anchor);
    else if (typeof value === 'object' && value !== null) this.checkObject(value as Node, node, path, out, own, anchor);
    if (out.full) return false;

    if (tracksOwn && Array.isArray(value) && node.unevaluatedItems !== undefined) {
      for (let index = 0; index < value.length && !out.full; index += 1) {
        if (own!.has(index)) continue;
        if (!this.apply(value[index], node.unevaluatedItems, child(path, index), out, undefined, anchor)) continue;
        own!.add(index);
      }
    }
    if (tracksOwn && isPlainObject(value) && node.unevaluatedProperties !== undefined) {
      for (const key of Object.keys(value)) {
        if (out.full) break;
        if (own!.has(key)) continue;
        if (node.unevaluatedProperties === false) {
          this.fail(
            out,
            child(path, key),
            'unevaluatedProperties',
            `Property "${clip(key)}" is not allowed (unevaluatedProperties is false).`,
          );
          continue;
        }
        if (this.apply(value[key], node.unevaluatedProperties, child(path, key), out, undefined, anchor)) own!.add(key);
      }
    }
    const valid = done();
    if (valid && tracksOwn && evaluated !== undefined) for (const key of own!) evaluated.add(key);
    return valid;
  }

  /** `type`, `const`, `enum`. False only when `out` is full. */
  private checkGeneric(value: unknown, node: Node, path: Path | undefined, out: Collector): boolean {
    if (node.type !== undefined) {
      const types = Array.isArray(node.type) ? node.type : [node.type];
      if (!types.some((type) => hasType(value, type))) {
        this.fail(
          out,
          path,
          'type',
          `Instance type "${typeName(value)}" is invalid. Expected "${types.join('", "')}".`,
        );
        if (out.full) return false;
      }
    }
    const extras = this.prepared.get(node);
    if (extras?.constKey !== undefined && this.keyOf(value, path) !== extras.constKey) {
      this.fail(out, path, 'const', `Instance does not match ${extras.constText}.`);
      if (out.full) return false;
    }
    if (extras?.enumKeys !== undefined && !extras.enumKeys.has(this.keyOf(value, path))) {
      this.fail(out, path, 'enum', `Instance does not match any of ${extras.enumText}.`);
      if (out.full) return false;
    }
    return true;
  }

  /** `allOf`, `anyOf`, `oneOf`, `not`, `if`/`then`/`else`. False only when `out` is full. */
  private applyCombinators(
    value: unknown,
    node: Node,
    path: Path | undefined,
    out: Collector,
    own: Evaluated | undefined,
    anchor: Node | null,
  ): boolean {
    if (Array.isArray(node.allOf)) {
      for (const part of node.allOf) if (!this.apply(value, part, path, out, own, anchor) && out.full) return false;
    }
    if (Array.isArray(node.anyOf)) {
      const probe = this.probeAll(value, node.anyOf, path, own, anchor, false, explains(out));
      if (probe.matches === 0)
        this.fail(
          out,
          path,
          'anyOf',
          `Value does not match any of the ${node.anyOf.length} allowed schemas: ${probe.reasons}`,
        );
      if (out.full) return false;
    }
    if (Array.isArray(node.oneOf)) {
      const probe = this.probeAll(value, node.oneOf, path, own, anchor, true, explains(out));
      if (probe.matches !== 1) {
        const detail = probe.matches === 0 ? `it matches none: ${probe.reasons}` : `it matches ${probe.matches}`;
        this.fail(out, path, 'oneOf', `Value must match exactly one of the ${node.oneOf.length} schemas; ${detail}`);
      }
      if (out.full) return false;
    }
    if (node.not !== undefined && this.apply(value, node.not, path, quietProbe(), undefined, anchor)) {
      this.fail(out, path, 'not', 'Value matches a schema it must not match ("not").');
      if (out.full) return false;
    }
    if (node.if !== undefined) {
      const conditionSeen: Evaluated | undefined = own === undefined ? undefined : new Set();
      const holds = this.apply(value, node.if, path, quietProbe(), conditionSeen, anchor);
      if (holds && conditionSeen !== undefined) for (const key of conditionSeen) own!.add(key);
      const branch = holds ? node.then : node.else;
      if (branch !== undefined && !this.apply(value, branch, path, out, own, anchor) && out.full) return false;
    }
    return true;
  }

  /**
   * Applies each branch, stopping each at its first error; keeps the evaluated keys of matches.
   * With `explain`, the first errors of up to three failing branches become the reasons (their
   * own nested branches are probed quietly).
   */
  private probeAll(
    value: unknown,
    branches: unknown[],
    path: Path | undefined,
    own: Evaluated | undefined,
    anchor: Node | null,
    all: boolean,
    explain: boolean,
  ): { matches: number; reasons: string } {
    let matches = 0;
    const reasons: string[] = [];
    for (const branch of branches) {
      const seen: Evaluated | undefined = own === undefined ? undefined : new Set();
      const probe = explain && reasons.length < 3 ? new Collector(1, true) : quietProbe();
      if (this.apply(value, branch, path, probe, seen, anchor)) {
        matches += 1;
        if (seen !== undefined) for (const key of seen) own!.add(key);
        if (!all && own === undefined) break;
        if (all && matches > 1 && own === undefined) break;
      } else if (probe.errors.length > 0) {
        const first = probe.errors[0]!;
        reasons.push(`${first.pointer || '/'} ${first.message}`);
      }
    }
    const more = branches.length - matches > reasons.length ? ' …' : '';
    return { matches, reasons: reasons.join('; ') + more };
  }

  private checkString(value: string, node: Node, path: Path | undefined, out: Collector): void {
    if (node.minLength !== undefined || node.maxLength !== undefined) {
      const length = codePointLength(value);
      if (typeof node.minLength === 'number' && length < node.minLength)
        this.fail(out, path, 'minLength', `String is too short (${length} < ${node.minLength}).`);
      if (typeof node.maxLength === 'number' && length > node.maxLength)
        this.fail(out, path, 'maxLength', `String is too long (${length} > ${node.maxLength}).`);
    }
    const extras = this.prepared.get(node);
    if (extras?.pattern !== undefined) {
      if (!this.matches(extras.pattern, value, path))
        this.fail(out, path, 'pattern', `String does not match pattern ${clip(extras.pattern.source)}.`);
    }
    if (typeof node.format === 'string' && isKnownFormat(node.format)) {
      this.charge(matchCost(value.length <= MAX_FORMAT_LENGTH ? value : ''), path);
      if (!checkFormat(node.format, value, this.formats))
        this.fail(out, path, 'format', `String does not match format "${clip(node.format)}".`);
    }
  }

  private checkNumber(value: number, node: Node, path: Path | undefined, out: Collector): void {
    const { minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf } = node;
    if (this.draft === '4') {
      if (typeof minimum === 'number' && (value < minimum || (exclusiveMinimum === true && value === minimum)))
        this.fail(
          out,
          path,
          'minimum',
          `${value} is less than ${exclusiveMinimum === true ? 'or equal to ' : ''}${minimum}.`,
        );
      if (typeof maximum === 'number' && (value > maximum || (exclusiveMaximum === true && value === maximum)))
        this.fail(
          out,
          path,
          'maximum',
          `${value} is greater than ${exclusiveMaximum === true ? 'or equal to ' : ''}${maximum}.`,
        );
    } else {
      if (typeof minimum === 'number' && value < minimum)
        this.fail(out, path, 'minimum', `${value} is less than ${minimum}.`);
      if (typeof maximum === 'number' && value > maximum)
        this.fail(out, path, 'maximum', `${value} is greater than ${maximum}.`);
      if (typeof exclusiveMinimum === 'number' && value <= exclusiveMinimum)
        this.fail(out, path, 'exclusiveMinimum', `${value} is less than or equal to ${exclusiveMinimum}.`);
      if (typeof exclusiveMaximum === 'number' && value >= exclusiveMaximum)
        this.fail(out, path, 'exclusiveMaximum', `${value} is greater than or equal to ${exclusiveMaximum}.`);
    }
    if (typeof multipleOf === 'number' && !isMultipleOf(value, multipleOf))
      this.fail(out, path, 'multipleOf', `${value} is not a multiple of ${multipleOf}.`);
  }

  private checkArray(
    value: unknown[],
    node: Node,
    path: Path | undefined,
    out: Collector,
    own: Evaluated | undefined,
    anchor: Node | null,
  ): void {
    const length = value.length;
    if (typeof node.maxItems === 'number' && length > node.maxItems)
      this.fail(out, path, 'maxItems', `Array has too many items (${length} > ${node.maxItems}).`);
    if (typeof node.minItems === 'number' && length < node.minItems)
      this.fail(out, path, 'minItems', `Array has too few items (${length} < ${node.minItems}).`);
    let index = 0;
    const each = (schema: unknown, end: number): void => {
      for (; index < end && !out.full; index += 1) {
        this.apply(value[index], schema, child(path, index), out, undefined, anchor);
        own?.add(index);
      }
    };
    if (Array.isArray(node.prefixItems)) {
      const prefix = node.prefixItems;
      for (; index < Math.min(prefix.length, length) && !out.full; index += 1) {
        this.apply(value[index], prefix[index], child(path, index), out, undefined, anchor);
        own?.add(index);
      }
    }
    if (Array.isArray(node.items)) {
      const tuple = node.items;
      for (; index < Math.min(tuple.length, length) && !out.full; index += 1) {
        this.apply(value[index], tuple[index], child(path, index), out, undefined, anchor);
        own?.add(index);
      }
      if (node.additionalItems !== undefined) each(node.additionalItems, length);
    } else if (node.items !== undefined) {
      each(node.items, length);
    }
    if (node.contains !== undefined && !out.full) this.checkContains(value, node, path, out, own, anchor);
    if (node.uniqueItems === true && !out.full) {
      const seen = new Map<string, number>();
      for (let position = 0; position < length; position += 1) {
        const key = this.keyOf(value[position], path);
        const earlier = seen.get(key);
        if (earlier !== undefined) {
          this.fail(out, path, 'uniqueItems', `Duplicate items at indexes ${earlier} and ${position}.`);
          break;
        }
        seen.set(key, position);
      }
    }
  }

  private checkContains(
    value: unknown[],
    node: Node,
    path: Path | undefined,
    out: Collector,
    own: Evaluated | undefined,
    anchor: Node | null,
  ): void {
    const minimum = typeof node.minContains === 'number' ? node.minContains : 1;
    const maximum = typeof node.maxContains === 'number' ? node.maxContains : Infinity;
    let contained = 0;
    for (let index = 0; index < value.length; index += 1) {
      if (!this.apply(value[index], node.contains, child(path, index), quietProbe(), undefined, anchor)) continue;
      contained += 1;
      own?.add(index);
      if (contained > maximum && own === undefined) break;
    }
    if (contained < minimum) {
      this.fail(
        out,
        path,
        minimum === 1 && node.minContains === undefined ? 'contains' : 'minContains',
        `Array must contain at least ${minimum} item(s) matching the "contains" schema; ${contained} found.`,
      );
    } else if (contained > maximum) {
      this.fail(
        out,
        path,
        'maxContains',
        `Array may contain at most ${maximum} item(s) matching the "contains" schema; ${contained} found.`,
      );
    }
  }

  private checkObject(
    value: Node,
    node: Node,
    path: Path | undefined,
    out: Collector,
    own: Evaluated | undefined,
    anchor: Node | null,
  ): void {
    const keys = Object.keys(value).filter((key) => value[key] !== undefined);
    if (Array.isArray(node.required)) {
      this.charge(node.required.length, path);
      for (const key of node.required) {
        if (!hasOwn(value, key as string))
          this.fail(out, path, 'required', `Instance does not have required property "${clip(String(key))}".`);
        if (out.full) return;
      }
    }
    if (typeof node.minProperties === 'number' && keys.length < node.minProperties)
      this.fail(out, path, 'minProperties', `Instance has fewer than ${node.minProperties} properties.`);
    if (typeof node.maxProperties === 'number' && keys.length > node.maxProperties)
      this.fail(out, path, 'maxProperties', `Instance has more than ${node.maxProperties} properties.`);
    this.checkDependencies(value, keys, node, path, out, own, anchor);
    if (node.propertyNames !== undefined) {
      for (const key of keys) {
        if (out.full) return;
        this.apply(key, node.propertyNames, child(path, key), out, undefined, anchor);
      }
    }
    const properties = isPlainObject(node.properties) ? node.properties : undefined;
    const patterns = this.prepared.get(node)?.patternProperties;
    for (const key of keys) {
      if (out.full) return;
      let matched = false;
      if (properties !== undefined && hasOwn(properties, key)) {
        matched = true;
        this.applyProperty(value[key], properties[key], key, 'properties', path, out, anchor);
      }
      if (patterns !== undefined) {
        for (const [pattern, schema] of patterns) {
          if (!this.matches(pattern, key, path)) continue;
          matched = true;
          this.applyProperty(value[key], schema, key, 'patternProperties', path, out, anchor);
        }
      }
      if (!matched && node.additionalProperties !== undefined) {
        matched = true;
        this.applyProperty(value[key], node.additionalProperties, key, 'additionalProperties', path, out, anchor);
      }
      if (matched) own?.add(key);
    }
  }

  private applyProperty(
    item: unknown,
    schema: unknown,
    key: string,
    keyword: string,
    path: Path | undefined,
    out: Collector,
    anchor: Node | null,
  ): void {
    if (schema === false) {
      const reason = keyword === 'additionalProperties' ? ' (additionalProperties is false)' : '';
      this.fail(out, child(path, key), keyword, `Property "${clip(key)}" is not allowed${reason}.`);
      return;
    }
    this.apply(item, schema, child(path, key), out, undefined, anchor);
  }

  private checkDependencies(
    value: Node,
    keys: string[],
    node: Node,
    path: Path | undefined,
    out: Collector,
    own: Evaluated | undefined,
    anchor: Node | null,
  ): void {
    for (const keyword of ['dependentRequired', 'dependentSchemas', 'dependencies']) {
      const map = node[keyword];
      if (!isPlainObject(map)) continue;
      for (const key of Object.keys(map)) {
        if (out.full || !hasOwn(value, key) || value[key] === undefined) continue;
        const dependency = map[key];
        if (Array.isArray(dependency)) {
          this.charge(dependency.length, path);
          for (const needed of dependency) {
            if (!hasOwn(value, String(needed)))
              this.fail(out, path, keyword, `Instance has "${clip(key)}" but does not have "${clip(String(needed))}".`);
          }
        } else {
          this.apply(value, dependency, path, out, own, anchor);
        }
      }
    }
    void keys;
  }

  /** Runs a pattern with what is left of the work budget; charges the steps it took. */
  private matches(pattern: SafePattern, text: string, path: Path | undefined): boolean {
    this.charge(1, path);
    try {
      const { matched, steps } = pattern.run(text, (this.budget.maxWork - this.work) * STEPS_PER_UNIT);
      this.charge(Math.ceil(steps / STEPS_PER_UNIT), path);
      return matched;
    } catch (error) {
      if (error instanceof PatternStepsExceeded) throw new ValidationLimitExceeded('work', pointerOf(path));
      throw error;
    }
  }

  /** The canonical key of a value, charged by its size. */
  private keyOf(value: unknown, path: Path | undefined): string {
    const key = canonicalKey(value);
    this.charge(textCost(key), path);
    return key;
  }

  private charge(units: number, path: Path | undefined): void {
    this.work += units;
    if (this.work > this.budget.maxWork) throw new ValidationLimitExceeded('work', pointerOf(path));
  }

  private fail(out: Collector, path: Path | undefined, keyword: string, message: string): false {
    out.count += 1;
    if (!out.detailed) return false;
    if (out.errors.length < out.limit) {
      const capped = cutText(message, this.budget.maxMessageChars);
      out.errors.push({ pointer: pointerOf(path), keyword, message: capped });
    }
    return false;
  }
}

/** A probe whose messages nobody reads: counts its first failure, builds no message. */
function quietProbe(): Collector {
  return new Collector(1, false);
}

/** Only errors that reach the caller explain failing branches; probes inside probes stay quiet. */
function explains(out: Collector): boolean {
  return out.detailed && out.limit > 1;
}

function child(path: Path | undefined, token: string | number): Path {
  return { parent: path, token };
}

const MAX_TOKEN_CHARS = 200;

const MAX_POINTER_CHARS = 1000;

/** The JSON pointer of a path; long keys and long paths are clipped so error records stay small. */
export function pointerOf(path: Path | undefined): string {
  const tokens: string[] = [];
  for (let step = path; step !== undefined; step = step.parent) {
    const text = String(step.token);
    const clipped = cutText(text, MAX_TOKEN_CHARS);
    tokens.push(clipped.replace(/~/g, '~0').replace(/\//g, '~1'));
  }
  const pointer = tokens.length === 0 ? '' : `/${tokens.reverse().join('/')}`;
  return cutText(pointer, MAX_POINTER_CHARS);
}

function clip(text: string): string {
  return cutText(text, 80);
}

/** Work units for hashing a text (`enum`, `const`, `uniqueItems` keys): 1 per 64 characters. */
function textCost(text: string): number {
  return 1 + (text.length >> 6);
}

/** Work units for checking a format: 4 per character (the URI patterns take ~30 steps a character). */
function matchCost(text: string): number {
  return 1 + 4 * text.length;
}

function hasOwn(object: object, key: string): boolean {
  return Object.hasOwn(object, key);
}

function isPlainObject(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
