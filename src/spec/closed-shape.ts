/**
 * checkClosedShape: walks a value along its JSON Schema and reports every key the schema does not
 * know (objects with `additionalProperties: false`), with the closest known key as a suggestion.
 * It only looks at keys and literal values, never at types of templated values: `with:` values
 * may be templates that become numbers or lists when rendered.
 *
 * Besides `properties`, `additionalProperties`, `items`, `$ref` (local) and `anyOf`/`oneOf` (the
 * branch is chosen by a `type` discriminator, else by the `required` keys present), it reads the
 * two keywords of parameter-shapes.ts: `x-tea-action-params` and `x-tea-provider`. Literal
 * numbers are held to `minimum`/`maximum` when `checkBounds` is set.
 */
import type { JsonSchema } from '../core/json-schema.js';
import type { ErrorCode } from '../core/agent-error.js';
import { PROVIDER_NAMES } from '../llm/presets.js';
import { quoted, suggestionFor } from '../util/suggest.js';
import { ACTION_PARAMS_KEYWORD, PROVIDER_KEYWORD } from './parameter-shapes.js';
import { shellKeyRule, teaKeyRule, teaProviderRefusal, type KeyLocation } from './tea-keys.js';
import { isPlainObject } from '../util/plain-object.js';

export type Path = Array<string | number>;

/** `settings.limits.max_steps`, `nodes[0].with.prompt`, `tools[0].name`. */
export function dotted(path: Path): string {
  return path.map((part, index) => (typeof part === 'number' ? `[${part}]` : index === 0 ? part : `.${part}`)).join('');
}

export interface ShapeIssue {
  code: ErrorCode;
  message: string;
  path: Path;
  /** True when the issue is about the key itself (its position is the key's, not the value's). */
  atKey: boolean;
  /** Accepted with a warning. */
  warning?: boolean;
}

export interface ShapeOptions {
  /** The schema `$ref: '#/...'` resolves against. */
  root: JsonSchema;
  /** Code of unknown-key and bound problems (INVALID_AGENT in the agent file, INVALID_PARAMS in `with:`). */
  code: ErrorCode;
  /** The parameter schema of a registered action, for `x-tea-action-params`. */
  paramsOf?(action: string): JsonSchema | undefined;
  /** The TEA key table location of the object at `path`, if any. */
  locationOf?(path: Path): KeyLocation | undefined;
  /** How to name the object at `path` in a message ("node 'a'", "settings.llm"). */
  describe(path: Path): string;
  /** Hold literal numbers to minimum/maximum. */
  checkBounds?: boolean;
  /**
   * Model providers the host serves besides the built-in ones (the Node CLI: `shell` when started
   * with `--shell-provider`). With `shell`, TEA's `shell_provider` keys are accepted too.
   */
  hostProviders?: readonly string[];
}

/**
 * Every unknown key, TEA-only key, unknown literal provider and out-of-bounds literal under `value`,
 * up to MAX_ISSUES (a load reports 50 problems at most; a file of 15,000 bad keys must not cost
 * 15,000 suggestions).
 */
export function checkClosedShape(value: unknown, schema: JsonSchema, path: Path, options: ShapeOptions): ShapeIssue[] {
  const issues: ShapeIssue[] = [];
  walk(value, schema, path, options, issues, 0);
  return issues;
}

const MAX_DEPTH = 64;
const MAX_ISSUES = 100;

function walk(
  value: unknown,
  raw: JsonSchema | undefined,
  path: Path,
  options: ShapeOptions,
  issues: ShapeIssue[],
  depth: number,
): void {
  if (raw === undefined || depth > MAX_DEPTH || issues.length >= MAX_ISSUES) return;
  const schema = chooseBranch(value, resolve(raw, options.root), options.root);
  if (schema === undefined) return;
  if (schema[PROVIDER_KEYWORD] === true) checkProvider(value, path, issues, options.hostProviders ?? []);
  if (options.checkBounds === true && typeof value === 'number' && Number.isFinite(value))
    checkBounds(value, schema, path, options, issues);
  if (Array.isArray(value)) {
    const items = schema.items;
    if (isSchema(items))
      value.forEach((item, index) => {
        walk(item, items, path.concat(index), options, issues, depth + 1);
      });
    return;
  }
  if (!isPlainObject(value)) return;
  const properties = isPlainObject(schema.properties) ? (schema.properties as Record<string, JsonSchema>) : {};
  const stepAction = actionOfStep(value, schema, options);
  const location = options.locationOf?.(path);
  const rules = new Map<string, ReturnType<typeof teaKeyRule>>();
  const covered = new Set<string>();
  for (const key of Object.keys(value)) {
    if (has(properties, key) || location === undefined) continue;
    const rule = (options.hostProviders ?? []).includes('shell')
      ? shellKeyRule(location, key, value[key])
      : teaKeyRule(location, key, value[key]);
    if (rule === 'accepted') {
      covered.add(key);
      continue;
    }
    if (rule === undefined) continue;
    rules.set(key, rule);
    for (const sibling of rule.covers ?? []) covered.add(sibling);
  }
  for (const key of Object.keys(value)) {
    if (issues.length >= MAX_ISSUES) return;
    const child = value[key];
    const childPath = path.concat(key);
    if (has(properties, key)) {
      if (key === 'with' && stepAction !== undefined)
        walk(child, stepAction.schema, childPath, options, issues, depth + 1);
      else walk(child, properties[key], childPath, options, issues, depth + 1);
      continue;
    }
    if (stepAction !== undefined && has(stepAction.properties, key)) {
      walk(child, stepAction.properties[key], childPath, options, issues, depth + 1);
      continue;
    }
    const rule = rules.get(key);
    if (rule !== undefined) {
      issues.push({
        code: rule.code,
        message: rule.message,
        path: childPath,
        atKey: true,
        ...(rule.ignored === true ? { warning: true } : {}),
      });
      continue;
    }
    if (covered.has(key)) continue;
    const pattern = matchingPattern(schema, key);
    if (pattern !== undefined) {
      walk(child, pattern, childPath, options, issues, depth + 1);
      continue;
    }
    if (isSchema(schema.additionalProperties)) {
      walk(child, schema.additionalProperties, childPath, options, issues, depth + 1);
      continue;
    }
    if (schema.additionalProperties !== false && stepAction === undefined) continue;
    if (stepAction?.open) continue;
    const known = [...Object.keys(properties), ...(stepAction !== undefined ? Object.keys(stepAction.properties) : [])];
    const owner = stepAction !== undefined ? `${options.describe(path)} (${stepAction.name})` : options.describe(path);
    issues.push({
      code: options.code,
      message: `unknown key ${quoted(key)} in ${owner}${suggestionFor(key, known)}`,
      path: childPath,
      atKey: true,
    });
  }
}

/** For an `x-tea-action-params` object naming a registered action: that action's parameter schema. */
function actionOfStep(value: Record<string, unknown>, schema: JsonSchema, options: ShapeOptions) {
  const keys = schema[ACTION_PARAMS_KEYWORD];
  if (!Array.isArray(keys) || options.paramsOf === undefined) return undefined;
  const nameKey = keys.find((key) => typeof key === 'string' && value[key] !== undefined) as string | undefined;
  const name = nameKey === undefined ? undefined : value[nameKey];
  if (typeof name !== 'string') return undefined;
  const parameters = options.paramsOf(name);
  if (parameters === undefined) return undefined; // unknown actions are reported by the compiler
  const resolved = resolve(parameters, options.root);
  const properties = isPlainObject(resolved.properties) ? (resolved.properties as Record<string, JsonSchema>) : {};
  return {
    name,
    schema: parameters,
    properties,
    open: resolved.additionalProperties !== false && resolved[ACTION_PARAMS_KEYWORD] === undefined,
  };
}

/** `anyOf`/`oneOf`: the branch for this value (by `type` discriminator, then by required keys). */
function chooseBranch(value: unknown, schema: JsonSchema, root: JsonSchema): JsonSchema | undefined {
  const branches = schema.anyOf ?? schema.oneOf;
  if (!Array.isArray(branches)) return schema;
  const resolved = branches.filter(isSchema).map((branch) => resolve(branch, root));
  const fitting = resolved.filter((branch) => fitsType(value, branch));
  if (fitting.length <= 1) return fitting[0];
  if (!isPlainObject(value)) return fitting[0];
  const byType = discriminate(value, fitting);
  if (byType !== undefined) return byType;
  const satisfied = fitting.filter((branch) => requiredOf(branch).every((key) => value[key] !== undefined));
  const most = Math.max(...satisfied.map((branch) => requiredOf(branch).length));
  const best = satisfied.filter((branch) => requiredOf(branch).length === most);
  return best.length === 1 ? best[0] : undefined;
}

/** The branch whose `type` property admits `value.type` (the branch with a default when absent). */
function discriminate(value: Record<string, unknown>, branches: JsonSchema[]): JsonSchema | undefined {
  const allowed = branches.map((branch) => {
    const property = isPlainObject(branch.properties)
      ? (branch.properties as Record<string, JsonSchema>).type
      : undefined;
    if (property === undefined) return undefined;
    if ('const' in property) return [property.const];
    return Array.isArray(property.enum) ? property.enum : undefined;
  });
  if (allowed.some((values) => values === undefined)) return undefined;
  const type = value.type;
  if (type === undefined) return branches.find((branch) => !requiredOf(branch).includes('type'));
  const index = allowed.findIndex((values) => values!.includes(type));
  return index === -1 ? undefined : branches[index];
}

function fitsType(value: unknown, schema: JsonSchema): boolean {
  const type = schema.type;
  if (type === undefined) return true;
  const types = Array.isArray(type) ? type : [type];
  const actual = Array.isArray(value)
    ? 'array'
    : value === null
      ? 'null'
      : typeof value === 'number'
        ? 'number'
        : typeof value === 'object'
          ? 'object'
          : typeof value;
  // Strings may be templates that render to anything.
  return actual === 'string' || types.includes(actual) || (actual === 'number' && types.includes('integer'));
}

function checkProvider(value: unknown, path: Path, issues: ShapeIssue[], hostProviders: readonly string[]): void {
  if (typeof value !== 'string' || /\{\{|\{%/.test(value)) return;
  const name = value.trim().toLowerCase();
  if (name === '' || PROVIDER_NAMES.includes(name) || hostProviders.includes(name)) return;
  const refusal = teaProviderRefusal(name);
  if (refusal !== undefined) {
    issues.push({ code: 'UNKNOWN_PROVIDER', message: refusal, path, atKey: false });
    return;
  }
  issues.push({
    code: 'UNKNOWN_PROVIDER',
    message: `unknown provider ${quoted(value)}${suggestionFor(name, PROVIDER_NAMES)} (any other OpenAI-compatible server: give \`api_base\`)`,
    path,
    atKey: false,
  });
}

function checkBounds(value: number, schema: JsonSchema, path: Path, options: ShapeOptions, issues: ShapeIssue[]): void {
  const field = path.filter((part) => typeof part === 'string').pop() ?? 'value';
  if (typeof schema.maximum === 'number' && value > schema.maximum) {
    issues.push({
      code: options.code,
      message: `\`${field}\` is ${value}, above its ceiling ${schema.maximum}`,
      path,
      atKey: false,
    });
  } else if (typeof schema.minimum === 'number' && value < schema.minimum) {
    issues.push({
      code: options.code,
      message: `\`${field}\` is ${value}, below its minimum ${schema.minimum}`,
      path,
      atKey: false,
    });
  }
}

function matchingPattern(schema: JsonSchema, key: string): JsonSchema | undefined {
  if (!isPlainObject(schema.patternProperties)) return undefined;
  for (const [source, sub] of Object.entries(schema.patternProperties)) {
    // Patterns here come from our own or the host's parameter schemas, never from agents.
    let pattern: RegExp;
    try {
      pattern = new RegExp(source, 'u');
    } catch {
      continue;
    }
    if (pattern.test(key)) return sub as JsonSchema;
  }
  return undefined;
}

function resolve(schema: JsonSchema, root: JsonSchema): JsonSchema {
  let current = schema;
  for (let hops = 0; typeof current.$ref === 'string' && current.$ref.startsWith('#/') && hops < 16; hops++) {
    let target: unknown = root;
    for (const part of current.$ref.slice(2).split('/')) target = isPlainObject(target) ? target[part] : undefined;
    if (!isSchema(target)) break;
    current = target;
  }
  return current;
}

function requiredOf(schema: JsonSchema): string[] {
  return Array.isArray(schema.required) ? (schema.required as string[]) : [];
}

function has(record: Record<string, unknown>, key: string): boolean {
  return Object.hasOwn(record, key);
}

function isSchema(value: unknown): value is JsonSchema {
  return isPlainObject(value);
}
