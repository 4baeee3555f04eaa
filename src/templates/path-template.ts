/**
 * The fast path for the commonest templates: text plus plain variable paths
 * (`Hi {{ state.user.name }}`, `{{ state.items }}`). They are rendered straight from the JS data,
 * without building the interpreter's runtime values, and give exactly what the interpreter would
 * (a differential test holds the two together). Anything unusual at render time (a missing scope
 * root, a Date, a function) falls back to the interpreter.
 */
import { AgentError } from '../core/agent-error.js';
import { hasPlainPrototype } from '../util/plain-object.js';
import { isReadableKey, toNativeValue, toRuntimeValue } from './jinja-runtime.js';
import { RenderBudget } from './render-budget.js';
import type { TemplateLimits } from './types.js';
import type { PreparedProgram } from './prepare-program.js';
import type { TemplateScope } from './types.js';

/** One `{{ root.key.0 }}` read: the scope name and the keys after it. */
interface PathRead {
  readonly root: string;
  readonly keys: readonly (string | number)[];
}

/** A template made only of text and path reads. */
export interface PathTemplate {
  readonly parts: readonly (string | PathRead)[];
  readonly lone: boolean;
}

/** Names the interpreter resolves from its globals; a path starting there is not plain data. */
const GLOBAL_NAMES: ReadonlySet<string> = new Set([
  'true',
  'false',
  'none',
  'True',
  'False',
  'None',
  'range',
  'raise_exception',
  'namespace',
]);

/** Returned by `renderPathTemplate` when the interpreter must render instead. */
export const FALL_BACK: unique symbol = Symbol('fall back to the interpreter');

type Node = { type: string; value?: unknown; object?: Node; property?: Node; computed?: boolean };

/** The fast form of `prepared`, or undefined when it has anything but text and path reads. */
export function toPathTemplate(prepared: PreparedProgram): PathTemplate | undefined {
  const body: readonly Node[] = prepared.lone !== undefined ? [prepared.lone] : prepared.program.body;
  const parts: (string | PathRead)[] = [];
  for (const node of body) {
    if (node.type === 'StringLiteral') {
      parts.push(node.value as string);
      continue;
    }
    const read = toPathRead(node);
    if (read === undefined) return undefined;
    parts.push(read);
  }
  return { parts, lone: prepared.lone !== undefined };
}

function toPathRead(node: Node): PathRead | undefined {
  const keys: (string | number)[] = [];
  let current = node;
  while (current.type === 'MemberExpression') {
    const property = current.property!;
    if (property.type === 'StringLiteral' && current.computed) keys.unshift(property.value as string);
    else if (property.type === 'IntegerLiteral') keys.unshift(property.value as number);
    else if (property.type === 'Identifier' && !current.computed) keys.unshift(property.value as string);
    else return undefined;
    current = current.object!;
  }
  if (current.type !== 'Identifier' || GLOBAL_NAMES.has(current.value as string)) return undefined;
  return { root: current.value as string, keys };
}

/**
 * Renders from JS data; FALL_BACK when the interpreter must decide, which is also how a limit is
 * reported (the interpreter fails again, within the same budget, naming the expression).
 */
export function renderPathTemplate(template: PathTemplate, scope: TemplateScope, limits: TemplateLimits): unknown {
  if (template.lone) {
    const value = readPath(scope, template.parts[0] as PathRead);
    if (value === null || typeof value !== 'object') return value;
    try {
      return toNativeValue(toRuntimeValue(value), new RenderBudget(limits));
    } catch (error) {
      if (AgentError.isInstance(error)) return FALL_BACK;
      throw error;
    }
  }
  const maxOutputChars = limits.maxOutputChars;
  let output = '';
  for (const part of template.parts) {
    if (typeof part === 'string') {
      output += part;
      continue;
    }
    const value = readPath(scope, part);
    if (value === FALL_BACK) return FALL_BACK;
    if (typeof value === 'string') output += value;
    else if (typeof value === 'number' || typeof value === 'boolean') output += String(value);
    // Lists and objects are printed by the interpreter, which writes them within the cap.
    else if (value !== null && value !== undefined) return FALL_BACK;
    // A size problem is reported by the interpreter, with its message and expression.
    if (output.length > maxOutputChars) return FALL_BACK;
  }
  return output;
}

function readPath(scope: TemplateScope, read: PathRead): unknown {
  if (scope === null || typeof scope !== 'object' || !isReadableKey(scope, read.root)) return FALL_BACK;
  let value: unknown = scope[read.root];
  for (const key of read.keys) {
    value = readKey(value, key);
    if (value === FALL_BACK) return FALL_BACK;
  }
  return isPlainData(value) ? value : FALL_BACK;
}

/** What `readMember` gives for a non-called read, on JS data. */
function readKey(value: unknown, key: string | number): unknown {
  if (value === null || value === undefined || typeof value === 'number' || typeof value === 'boolean')
    return undefined;
  if (typeof value === 'string' || Array.isArray(value)) {
    if (typeof key === 'number') return value.at(key);
    return key === 'length' ? value.length : undefined;
  }
  if (!isPlainObject(value)) return FALL_BACK;
  const name = String(key);
  return isReadableKey(value, name) ? (value as Record<string, unknown>)[name] : undefined;
}

function isPlainObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null && hasPlainPrototype(value);
}

function isPlainData(value: unknown): boolean {
  const kind = typeof value;
  return (
    kind === 'string' ||
    kind === 'number' ||
    kind === 'boolean' ||
    value === null ||
    value === undefined ||
    Array.isArray(value) ||
    isPlainObject(value)
  );
}
