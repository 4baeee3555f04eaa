/**
 * The one traversal of a value being sanitised: every decision about what the sanitised JSON
 * holds (redaction, dropped keys, cycles, depth, `toJSON`, errors, non-JSON values) is made here,
 * once, and handed to a consumer. redact.ts's consumer builds the copy; sanitized-size.ts's counts
 * the bytes of its JSON without building it. So the two agree by construction.
 */
import { isRedactedKey, KeyVerdict, keyVerdict, REDACTED, redactString, type CopyContext } from './copy-context.js';

/**
 * What a walk makes of each part of a value. `Result` is what a value becomes (undefined: it is
 * left out, as JSON leaves out `undefined` and functions); `Container` is what an array or object
 * accumulates while its items are walked.
 */
export interface WalkConsumer<Result, Container> {
  /**
   * True when this consumer stops early: a walk then ends each array and object once
   * `context.floor` passes `context.stopAt`, and the fields of the object at `context.fieldDepth`
   * each have their own floor (see CopyContext).
   */
  readonly stops: boolean;
  /** A string, already redacted (or a marker such as `[circular]`). */
  string(text: string, context: CopyContext): Result;
  /** A finite number. */
  number(value: number, context: CopyContext): Result;
  /** `true`, `false` or `null`. */
  literal(value: boolean | null, context: CopyContext): Result;
  /** What this consumer remembers for `value` at `depth` (a plain object or array), if anything. */
  recall(value: object, depth: number, context: CopyContext): Result | undefined;
  /** `value` (a plain object or array) walked to `result`; `clean` when no marker was made inside. */
  remember(value: object, depth: number, result: Result, clean: boolean, context: CopyContext): void;
  startArray(source: readonly unknown[], context: CopyContext): Container;
  /** Item `index` of `source`, `original`, became `result` (an item left out became `literal(null)`). */
  item(
    container: Container,
    index: number,
    result: Result,
    original: unknown,
    source: readonly unknown[],
    context: CopyContext,
  ): Container;
  /** The array after `count` items (fewer than `source.length` when the walk stopped early). */
  endArray(container: Container, count: number, source: readonly unknown[]): Result;
  startFields(source: object, context: CopyContext): Container;
  /** The field `keys[index]` of `source`, `original`, became `name: result`. */
  field(
    container: Container,
    keys: readonly string[],
    index: number,
    name: string,
    result: Result,
    original: unknown,
    source: object,
    context: CopyContext,
  ): Container;
  /** The field `keys[index]` of `source` is left out. */
  omit(container: Container, keys: readonly string[], index: number, source: object): Container;
  endFields(container: Container, source: object): Result;
  /** A field at `fieldDepth` whose walk stopped early (`partial`); only called when `stops`. */
  tooLarge(field: unknown, partial: Result, depth: number, context: CopyContext): Result;
}

/** Walks `value` at `depth` (0 for a whole event) for `consumer`: what the sanitised JSON holds. */
export function walkValue<Result, Container>(
  value: unknown,
  depth: number,
  context: CopyContext,
  consumer: WalkConsumer<Result, Container>,
): Result | undefined {
  switch (typeof value) {
    case 'string':
      return consumer.string(redactString(value, context), context);
    case 'number':
      return Number.isFinite(value) ? consumer.number(value, context) : consumer.literal(null, context);
    case 'boolean':
      return consumer.literal(value, context);
    case 'bigint':
      return consumer.string(value.toString(), context);
    case 'object':
      return value === null ? consumer.literal(null, context) : walkObject(value, depth, context, consumer);
    default:
      return undefined;
  }
}

function walkObject<Result, Container>(
  value: object,
  depth: number,
  context: CopyContext,
  consumer: WalkConsumer<Result, Container>,
): Result | undefined {
  if (context.ancestors.includes(value)) return marker('[circular]', context, consumer);
  if (depth >= context.maxDepth) return marker('[depth limit]', context, consumer);
  const remembered = consumer.recall(value, depth, context);
  if (remembered !== undefined) return remembered;
  const markers = context.markers;
  context.ancestors.push(value);
  try {
    let result: Result;
    if (Array.isArray(value)) result = walkArray(value, depth, context, consumer);
    else {
      const toJSON = 'toJSON' in value ? value.toJSON : undefined;
      if (value instanceof Error && typeof toJSON !== 'function')
        return walkFields(errorFields(value), depth, context, consumer);
      if (typeof toJSON === 'function') {
        let converted: unknown;
        try {
          converted = toJSON.call(value);
        } catch {
          return marker('[unserialisable]', context, consumer);
        }
        return converted === value
          ? walkFields(value, depth, context, consumer)
          : walkValue(converted, depth + 1, context, consumer);
      }
      result = walkFields(value, depth, context, consumer);
    }
    // A plain subtree with no marker in it becomes the same wherever it is at this depth.
    consumer.remember(value, depth, result, context.markers === markers, context);
    return result;
  } finally {
    context.ancestors.pop();
  }
}

/** A marker string standing for what cannot be kept (a subtree that made one depends on where it sits). */
function marker<Result, Container>(
  text: string,
  context: CopyContext,
  consumer: WalkConsumer<Result, Container>,
): Result {
  context.markers++;
  return consumer.string(redactString(text, context), context);
}

function walkArray<Result, Container>(
  value: unknown[],
  depth: number,
  context: CopyContext,
  consumer: WalkConsumer<Result, Container>,
): Result {
  // A `[name, value]` header pair naming a credential keeps the name and redacts the value.
  const isHeaderPair = value.length === 2 && typeof value[0] === 'string' && isRedactedKey(value[0], context);
  let container = consumer.startArray(value, context);
  for (let index = 0; index < value.length; index++) {
    if (consumer.stops && context.floor > context.stopAt) return consumer.endArray(container, index, value);
    const item = value[index];
    let result =
      isHeaderPair && index === 1
        ? walkValue(REDACTED, depth, context, consumer)
        : walkValue(item, depth + 1, context, consumer);
    if (result === undefined) result = consumer.literal(null, context);
    container = consumer.item(container, index, result, item, value, context);
  }
  return consumer.endArray(container, value.length, value);
}

function walkFields<Result, Container>(
  value: object,
  depth: number,
  context: CopyContext,
  consumer: WalkConsumer<Result, Container>,
): Result {
  const source = value as Record<string, unknown>;
  const ownFloors = consumer.stops && depth === context.fieldDepth;
  let container = consumer.startFields(value, context);
  const keys = Object.keys(value);
  for (let index = 0; index < keys.length; index++) {
    if (consumer.stops && context.floor > context.stopAt) break;
    const key = keys[index]!;
    const verdict = keyVerdict(key, context);
    if (verdict === KeyVerdict.Drop) {
      container = consumer.omit(container, keys, index, value);
      continue;
    }
    const field = source[key];
    if (verdict === KeyVerdict.Redact) {
      if (field === undefined || field === null) container = consumer.omit(container, keys, index, value);
      else
        container = consumer.field(
          container,
          keys,
          index,
          key,
          consumer.string(REDACTED, context),
          field,
          value,
          context,
        );
      continue;
    }
    const floorBefore = context.floor;
    if (ownFloors) context.floor = 0;
    let result = walkValue(field, depth + 1, context, consumer);
    if (ownFloors) {
      let floor = context.floor;
      if (result !== undefined && floor > context.stopAt) {
        result = consumer.tooLarge(field, result, depth + 1, context);
        floor = 0;
      }
      context.floor = floor + floorBefore;
    }
    if (result === undefined) {
      container = consumer.omit(container, keys, index, value);
      continue;
    }
    // A secret used as a key name (`{[key]: 1}` built by an agent) must not leak either.
    const name = context.secrets.length > 0 ? redactString(key, context) : key;
    container = consumer.field(container, keys, index, name, result, field, value, context);
  }
  return consumer.endFields(container, value);
}

/** What is kept of an Error (one without toJSON): its name and message, as fields. */
export function errorFields(error: Error): Record<string, unknown> {
  return { name: error.name, message: error.message };
}
