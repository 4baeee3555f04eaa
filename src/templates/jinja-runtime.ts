/**
 * The bridge to @huggingface/jinja's runtime values. The package exports only `Environment`,
 * `Interpreter`, `tokenize` and `parse`; its value classes are reached once, at module load, by
 * converting one probe value each (the constructors are constants and never changed).
 *
 * JS data becomes runtime values lazily: an object's key is converted when a template reads it,
 * so rendering a prompt does not copy the whole run state on every render. Only own properties
 * are visible and `__proto__`/`constructor`/`prototype` never are.
 */
import { Environment, type Interpreter } from '@huggingface/jinja';
import { AgentError } from '../core/agent-error.js';

/** Any value the interpreter produces (IntegerValue, StringValue, ObjectValue, ...). */
export type RuntimeValue = ReturnType<Interpreter['evaluate']>;
/** A node of the parsed template (the library types it as `Statement`). */
export type TemplateNode = NonNullable<Parameters<Interpreter['evaluate']>[0]>;

/**
 * Makes values of the library class that `probe` converts to. Values are built from the class's
 * prototype with two plain stores rather than `new`: the library's base-class field initialiser,
 * shared by every value class, turns megamorphic and then costs about 1 µs per value (measured
 * 15 times slower than this). The classes' only fields are `type` and `value` (plus a `_builtins`
 * cache their getter creates on first use), so the objects behave the same; a test compares them.
 */
function valueFactory<T>(probe: unknown): (value: T) => RuntimeValue {
  const example = new Environment().set('probe', probe);
  const prototype = Object.getPrototypeOf(example) as object;
  const type = example.type;
  return (value: T) => {
    const made = Object.create(prototype) as { type: string; value: T };
    made.type = type;
    made.value = value;
    return made as unknown as RuntimeValue;
  };
}

/** The library's value classes, as probes (used by the factory test). */
export const VALUE_PROBES: readonly unknown[] = [1, 1.5, '', true, null, undefined, [], {}, () => null];

const IntegerValue = valueFactory<number>(1);
const FloatValue = valueFactory<number>(1.5);
const StringValue = valueFactory<string>('');
const BooleanValue = valueFactory<boolean>(true);
const NullValue = valueFactory<null>(null);
const UndefinedValue = valueFactory<undefined>(undefined);
const ArrayValue = valueFactory<RuntimeValue[]>([]);
const ObjectValue = valueFactory<Map<string, RuntimeValue>>({});
const FunctionValue = valueFactory<(args: RuntimeValue[], scope: Environment) => RuntimeValue>(() => null);

/**
 * A child environment (a render's, a loop's). Made from the prototype with the class's three
 * fields (`parent`, `variables`, `tests`) rather than `new`, which would also build a `namespace`
 * function value and a Map each time only to shadow them; a test compares the fields with a
 * constructed Environment.
 */
export function createEnvironment(parent: Environment, variables: Map<string, RuntimeValue> = new Map()): Environment {
  const environment = Object.create(Environment.prototype) as Environment;
  environment.parent = parent;
  environment.variables = variables;
  (environment as { tests: Environment['tests'] }).tests = parent.tests;
  return environment;
}

/** Keys that are never read from or written into objects built from template data. */
export const BLOCKED_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** Deepest nesting converted back to JS (state is JSON; deeper means a cycle or a bomb). */
const MAX_NATIVE_DEPTH = 200;

export const makeInteger = (value: number): RuntimeValue => IntegerValue(value);
export const makeFloat = (value: number): RuntimeValue => FloatValue(value);
export const makeString = (value: string): RuntimeValue => StringValue(value);
export const makeBoolean = (value: boolean): RuntimeValue => BooleanValue(value);
export const makeNull = (): RuntimeValue => NullValue(null);
export const makeUndefined = (): RuntimeValue => UndefinedValue(undefined);
export const makeArray = (items: RuntimeValue[]): RuntimeValue => ArrayValue(items);
export const makeObject = (entries: Map<string, RuntimeValue>): RuntimeValue => ObjectValue(entries);
export const makeFunction = (body: (args: RuntimeValue[], scope: Environment) => RuntimeValue): RuntimeValue =>
  FunctionValue(body);

/** A number as the library types it: integers stay integers, everything else is a float. */
export const makeNumber = (value: number): RuntimeValue =>
  Number.isInteger(value) ? makeInteger(value) : makeFloat(value);

export const isString = (value: RuntimeValue): value is RuntimeValue & { value: string } =>
  value.type === 'StringValue';
export const isInteger = (value: RuntimeValue): value is RuntimeValue & { value: number } =>
  value.type === 'IntegerValue';
export const isNumber = (value: RuntimeValue): value is RuntimeValue & { value: number } =>
  value.type === 'IntegerValue' || value.type === 'FloatValue';
export const isBoolean = (value: RuntimeValue): value is RuntimeValue & { value: boolean } =>
  value.type === 'BooleanValue';
export const isNull = (value: RuntimeValue): boolean => value.type === 'NullValue';
export const isUndefined = (value: RuntimeValue): boolean => value.type === 'UndefinedValue';
export const isArray = (value: RuntimeValue): value is RuntimeValue & { value: RuntimeValue[] } =>
  value.type === 'ArrayValue' || value.type === 'TupleValue';
/** Objects, namespaces and keyword-argument bags: anything keyed by strings. */
export const isMapping = (value: RuntimeValue): value is RuntimeValue & { value: Map<string, RuntimeValue> } =>
  value.type === 'ObjectValue' || value.type === 'NamespaceValue' || value.type === 'KeywordArgumentsValue';
export const isFunction = (value: RuntimeValue): boolean => value.type === 'FunctionValue';

/** True when `key` is an own, readable property of a data object. */
export function isReadableKey(source: object, key: string): boolean {
  return Object.hasOwn(source, key) && !BLOCKED_KEYS.has(key);
}

/**
 * A Map over a JS object that converts each value on first read. Whole-map operations (size,
 * iteration) convert everything once, keeping the object's key order.
 */
export class LazyRecordMap extends Map<string, RuntimeValue> {
  readonly source: Readonly<Record<string, unknown>>;
  #complete = false;
  /** True once a template wrote into the map (then `source` no longer describes it). */
  modified = false;

  constructor(source: Readonly<Record<string, unknown>>) {
    super();
    this.source = source;
  }

  override get(key: string): RuntimeValue | undefined {
    const cached = super.get(key);
    if (cached !== undefined || this.#complete) return cached;
    if (!isReadableKey(this.source, key)) return undefined;
    const value = toRuntimeValue(this.source[key]);
    super.set(key, value);
    return value;
  }

  override has(key: string): boolean {
    return super.has(key) || (!this.#complete && isReadableKey(this.source, key));
  }

  override set(key: string, value: RuntimeValue): this {
    this.modified = true;
    return super.set(key, value);
  }

  override delete(key: string): boolean {
    this.#fill();
    this.modified = true;
    return super.delete(key);
  }

  override get size(): number {
    this.#fill();
    return super.size;
  }

  override entries(): MapIterator<[string, RuntimeValue]> {
    this.#fill();
    return super.entries();
  }

  override keys(): MapIterator<string> {
    this.#fill();
    return super.keys();
  }

  override values(): MapIterator<RuntimeValue> {
    this.#fill();
    return super.values();
  }

  override forEach(
    callback: (value: RuntimeValue, key: string, map: Map<string, RuntimeValue>) => void,
    thisArg?: unknown,
  ): void {
    this.#fill();
    super.forEach(callback, thisArg);
  }

  override [Symbol.iterator](): MapIterator<[string, RuntimeValue]> {
    this.#fill();
    return super.entries();
  }

  #fill(): void {
    if (this.#complete) return;
    this.#complete = true;
    const cached = new Map(super.entries());
    super.clear();
    for (const key of Object.keys(this.source)) {
      if (BLOCKED_KEYS.has(key)) continue;
      super.set(key, cached.get(key) ?? toRuntimeValue(this.source[key]));
      cached.delete(key);
    }
    for (const [key, value] of cached) super.set(key, value);
  }
}

/** Converts JS data into a runtime value; objects convert lazily, functions are never exposed. */
export function toRuntimeValue(input: unknown): RuntimeValue {
  switch (typeof input) {
    case 'string':
      return makeString(input);
    case 'number':
      return makeNumber(input);
    case 'boolean':
      return makeBoolean(input);
    case 'bigint':
      return makeNumber(Number(input));
    case 'undefined':
      return makeUndefined();
    case 'object':
      if (input === null) return makeNull();
      if (Array.isArray(input)) return makeArray(input.map(toRuntimeValue));
      if (input instanceof Date) return makeString(input.toISOString());
      return makeObject(new LazyRecordMap(input as Record<string, unknown>));
    default:
      return makeUndefined();
  }
}

/** What copying charges: one work unit per value copied (a RenderBudget). */
export interface CopyCounter {
  work(units: number): void;
}

/**
 * Converts a runtime value back to fresh JS data (objects and lists are new; unread parts of
 * lazily converted objects are copied straight from their source). Every value copied is charged
 * to `counter`: a list holding the same list many times is copied that many times.
 */
export function toNativeValue(value: RuntimeValue, counter?: CopyCounter, depth = 0): unknown {
  if (depth > MAX_NATIVE_DEPTH) {
    throw new AgentError('TEMPLATE_ERROR', `value nested deeper than ${MAX_NATIVE_DEPTH} levels`);
  }
  switch (value.type) {
    case 'IntegerValue':
    case 'FloatValue':
    case 'StringValue':
    case 'BooleanValue':
      return value.value;
    case 'NullValue':
      return null;
    case 'UndefinedValue':
      return undefined;
    case 'ArrayValue':
    case 'TupleValue': {
      const items = value.value as RuntimeValue[];
      counter?.work(items.length);
      return items.map((item) => toNativeValue(item, counter, depth + 1));
    }
    case 'ObjectValue':
    case 'NamespaceValue':
    case 'KeywordArgumentsValue': {
      const entries = value.value as Map<string, RuntimeValue>;
      if (entries instanceof LazyRecordMap && !entries.modified) return copyData(entries.source, depth, counter);
      const result: Record<string, unknown> = {};
      counter?.work(entries.size);
      for (const [key, item] of entries) {
        if (!BLOCKED_KEYS.has(key)) result[key] = toNativeValue(item, counter, depth + 1);
      }
      return result;
    }
    default:
      throw new AgentError('TEMPLATE_ERROR', 'the expression gives a function, not a value');
  }
}

/** Deep copy of JSON-like data: own keys only, blocked keys and functions dropped; charged as toNativeValue. */
export function copyData(input: unknown, depth = 0, counter?: CopyCounter): unknown {
  if (depth > MAX_NATIVE_DEPTH) {
    throw new AgentError('TEMPLATE_ERROR', `value nested deeper than ${MAX_NATIVE_DEPTH} levels`);
  }
  if (input === null || typeof input !== 'object') return typeof input === 'function' ? undefined : input;
  if (Array.isArray(input)) {
    counter?.work(input.length);
    return input.map((item) => copyData(item, depth + 1, counter));
  }
  if (input instanceof Date) return input.toISOString();
  const result: Record<string, unknown> = {};
  const keys = Object.keys(input);
  counter?.work(keys.length);
  for (const key of keys) {
    if (!BLOCKED_KEYS.has(key)) result[key] = copyData((input as Record<string, unknown>)[key], depth + 1, counter);
  }
  return result;
}
