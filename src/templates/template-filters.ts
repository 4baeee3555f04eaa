/**
 * The filters tea-edge defines itself (SPEC §2), checked before the library's own. They take any
 * operand type the way Jinja does (`upper` on a number works), treat a missing value as empty,
 * and count the strings and lists they build against the render budget.
 */
import { AgentError } from '../errors/agent-error.js';
import { COLLECTION_FILTERS } from './collection-filters.js';
import { formatJson } from './format-json.js';
import {
  type RuntimeValue,
  isArray,
  isBoolean,
  isMapping,
  isNull,
  isNumber,
  isString,
  isUndefined,
  makeArray,
  makeBoolean,
  makeFloat,
  makeInteger,
  makeString,
  makeUndefined,
  toRuntimeValue,
  toText,
} from './jinja-runtime.js';
import type { RenderBudget } from './render-budget.js';
import { readAttributePath } from './read-member.js';
import { type FormatArgument, parseFloatText, parseIntegerText, percentFormat, pythonReplace, roundNumber, truncateText } from './text-helpers.js';

/** What a filter gets besides its operand and arguments. */
export interface FilterContext {
  readonly budget: RenderBudget;
  /** Applies another filter by name (for `map('upper')`). */
  applyFilter(name: string, operand: RuntimeValue, args: RuntimeValue[]): RuntimeValue;
}

export type TemplateFilter = (
  operand: RuntimeValue,
  args: RuntimeValue[],
  keywords: ReadonlyMap<string, RuntimeValue>,
  context: FilterContext,
) => RuntimeValue;

/** Positional argument `index`, else keyword `name`, else undefined. */
function argument(args: RuntimeValue[], keywords: ReadonlyMap<string, RuntimeValue>, index: number, name: string): RuntimeValue | undefined {
  const value = args[index] ?? keywords.get(name);
  return value === undefined || isUndefined(value) ? undefined : value;
}

function stringArgument(args: RuntimeValue[], keywords: ReadonlyMap<string, RuntimeValue>, index: number, name: string, fallback: string): string {
  const value = argument(args, keywords, index, name);
  return value === undefined ? fallback : toText(value);
}

function numberArgument(args: RuntimeValue[], keywords: ReadonlyMap<string, RuntimeValue>, index: number, name: string, fallback: number): number {
  const value = argument(args, keywords, index, name);
  if (value === undefined) return fallback;
  if (isNumber(value)) return value.value;
  throw new AgentError('TEMPLATE_ERROR', `argument '${name}' must be a number, got ${value.type}`);
}

function textFilter(transform: (text: string) => string): TemplateFilter {
  return (operand, _args, _keywords, context) => {
    const text = transform(toText(operand));
    context.budget.size(text.length);
    return makeString(text);
  };
}

function sizeOf(operand: RuntimeValue): number {
  if (isString(operand)) return Array.from(operand.value).length;
  if (isArray(operand)) return operand.value.length;
  if (isMapping(operand)) return operand.value.size;
  if (isUndefined(operand) || isNull(operand)) return 0;
  throw new AgentError('TEMPLATE_ERROR', `length: a ${operand.type} has no length`);
}

function itemsOf(operand: RuntimeValue, filter: string): RuntimeValue[] {
  if (isArray(operand)) return operand.value;
  if (isString(operand)) return Array.from(operand.value, (character) => makeString(character));
  if (isMapping(operand)) return Array.from((operand.value as Map<string, RuntimeValue>).keys(), (key) => makeString(key));
  if (isUndefined(operand) || isNull(operand)) return [];
  throw new AgentError('TEMPLATE_ERROR', `${filter}: expected a list, got ${operand.type}`);
}

const toJson: TemplateFilter = (operand, args, keywords, context) => {
  const indent = argument(args, keywords, 0, 'indent');
  if (indent !== undefined && !isNumber(indent) && !isString(indent) && !isNull(indent)) {
    throw new AgentError('TEMPLATE_ERROR', 'tojson: indent must be a number or a string');
  }
  const indentValue = indent === undefined || isNull(indent) ? null : (indent.value as number | string);
  return makeString(formatJson(operand, indentValue, context.budget));
};

const fromJson: TemplateFilter = (operand) => {
  if (!isString(operand)) return operand;
  try {
    return toRuntimeValue(JSON.parse(operand.value));
  } catch {
    // As in TEA: text that is not JSON comes back unchanged.
    return operand;
  }
};

const defaultFilter: TemplateFilter = (operand, args, keywords) => {
  const fallback = args[0] ?? keywords.get('default_value') ?? makeString('');
  const flag = argument(args, keywords, 1, 'boolean');
  const onFalsy = flag !== undefined && flag.__bool__().value;
  if (isUndefined(operand)) return fallback;
  // Python truthiness (the library's __bool__): the falsy words of conditions do not count here.
  if (onFalsy && !operand.__bool__().value) return fallback;
  return operand;
};

const joinFilter: TemplateFilter = (operand, args, keywords, context) => {
  const separator = stringArgument(args, keywords, 0, 'd', '');
  const attribute = argument(args, keywords, 1, 'attribute');
  const items = itemsOf(operand, 'join').map((item) => toText(attribute === undefined ? item : readAttributePath(item, toText(attribute))));
  const size = items.reduce((total, text) => total + text.length, 0) + separator.length * Math.max(items.length - 1, 0);
  context.budget.size(size);
  return makeString(items.join(separator));
};

const firstFilter: TemplateFilter = (operand) => itemsOf(operand, 'first')[0] ?? makeUndefined();
const lastFilter: TemplateFilter = (operand) => itemsOf(operand, 'last').at(-1) ?? makeUndefined();

const mapFilter: TemplateFilter = (operand, args, keywords, context) => {
  const items = itemsOf(operand, 'map');
  const attribute = keywords.get('attribute');
  if (attribute !== undefined) {
    const path = toText(attribute);
    const fallback = keywords.get('default');
    return makeArray(
      items.map((item) => {
        const value = readAttributePath(item, path);
        return isUndefined(value) && fallback !== undefined ? fallback : value;
      }),
    );
  }
  const name = args[0];
  if (name === undefined || !isString(name)) {
    throw new AgentError('TEMPLATE_ERROR', "map: give attribute='name' or a filter name, e.g. map('upper')");
  }
  return makeArray(items.map((item) => context.applyFilter(name.value, item, args.slice(1))));
};

const replaceFilter: TemplateFilter = (operand, args, keywords, context) => {
  const count = argument(args, keywords, 2, 'count');
  const text = pythonReplace(
    toText(operand),
    stringArgument(args, keywords, 0, 'old', ''),
    stringArgument(args, keywords, 1, 'new', ''),
    count !== undefined && isNumber(count) ? count.value : -1,
    context.budget.limits.maxOutputChars,
  );
  context.budget.size(text.length);
  return makeString(text);
};

const intFilter: TemplateFilter = (operand, args, keywords) => {
  const fallback = argument(args, keywords, 0, 'default') ?? makeInteger(0);
  const base = numberArgument(args, keywords, 1, 'base', 10);
  if (isNumber(operand)) return makeInteger(Math.trunc(operand.value));
  if (isBoolean(operand)) return makeInteger(operand.value ? 1 : 0);
  if (isString(operand)) {
    const parsed = parseIntegerText(operand.value, base);
    return parsed === undefined ? fallback : makeInteger(parsed);
  }
  return fallback;
};

const floatFilter: TemplateFilter = (operand, args, keywords) => {
  const fallback = argument(args, keywords, 0, 'default') ?? makeFloat(0);
  if (isNumber(operand)) return makeFloat(operand.value);
  if (isBoolean(operand)) return makeFloat(operand.value ? 1 : 0);
  if (isString(operand)) {
    const parsed = parseFloatText(operand.value);
    return parsed === undefined ? fallback : makeFloat(parsed);
  }
  return fallback;
};

const roundFilter: TemplateFilter = (operand, args, keywords) => {
  if (!isNumber(operand)) throw new AgentError('TEMPLATE_ERROR', `round: expected a number, got ${operand.type}`);
  const precision = numberArgument(args, keywords, 0, 'precision', 0);
  const method = stringArgument(args, keywords, 1, 'method', 'common');
  if (method !== 'common' && method !== 'ceil' && method !== 'floor') {
    throw new AgentError('TEMPLATE_ERROR', `round: method must be 'common', 'ceil' or 'floor', got '${method}'`);
  }
  return makeFloat(roundNumber(operand.value, Math.trunc(precision), method));
};

const truncateFilter: TemplateFilter = (operand, args, keywords) => {
  const killWords = argument(args, keywords, 1, 'killwords');
  return makeString(
    truncateText(
      toText(operand),
      numberArgument(args, keywords, 0, 'length', 255),
      killWords !== undefined && killWords.__bool__().value,
      stringArgument(args, keywords, 2, 'end', '...'),
      numberArgument(args, keywords, 3, 'leeway', 5),
    ),
  );
};

const trimFilter: TemplateFilter = (operand, args, keywords, context) => {
  const chars = argument(args, keywords, 0, 'chars');
  if (chars === undefined) return textFilter((text) => text.trim())(operand, args, keywords, context);
  const set = new Set(Array.from(toText(chars)));
  const characters = Array.from(toText(operand));
  let start = 0;
  let end = characters.length;
  while (start < end && set.has(characters[start]!)) start++;
  while (end > start && set.has(characters[end - 1]!)) end--;
  return makeString(characters.slice(start, end).join(''));
};

const stringFilter: TemplateFilter = (operand, _args, _keywords, context) => {
  const text = toText(operand);
  context.budget.size(text.length);
  return makeString(text);
};

/** An argument of `%` formatting: its printed text and, when it is a number (or boolean), the number. */
export function formatArgument(value: RuntimeValue): FormatArgument {
  const number = isNumber(value) ? value.value : isBoolean(value) ? Number(value.value) : undefined;
  return { text: toText(value), number };
}

/** `'%.2f' | format(x)` and `'%s=%s' % (a, b)`: Python `%` formatting. */
export function formatValues(template: RuntimeValue, values: RuntimeValue[], context: FilterContext): RuntimeValue {
  const text = percentFormat(toText(template), values.map(formatArgument));
  context.budget.size(text.length);
  return makeString(text);
}

/** tea-edge's filters by name (aliases included). A constant table; never changed at run time. */
export const TEMPLATE_FILTERS: ReadonlyMap<string, TemplateFilter> = new Map<string, TemplateFilter>([
  ['tojson', toJson],
  ['json', toJson],
  ['fromjson', fromJson],
  ['default', defaultFilter],
  ['d', defaultFilter],
  ['length', (operand) => makeInteger(sizeOf(operand))],
  ['count', (operand) => makeInteger(sizeOf(operand))],
  ['join', joinFilter],
  ['upper', textFilter((text) => text.toUpperCase())],
  ['lower', textFilter((text) => text.toLowerCase())],
  ['capitalize', textFilter((text) => text.charAt(0).toUpperCase() + text.slice(1).toLowerCase())],
  ['trim', trimFilter],
  ['truncate', truncateFilter],
  ['first', firstFilter],
  ['last', lastFilter],
  ['map', mapFilter],
  ['replace', replaceFilter],
  ['int', intFilter],
  ['float', floatFilter],
  ['string', stringFilter],
  ['round', roundFilter],
  ['bool', (operand) => makeBoolean(operand.__bool__().value)],
  ['list', (operand) => makeArray(itemsOf(operand, 'list').slice())],
  ['format', (operand, args, _keywords, context) => formatValues(operand, args, context)],
  ...COLLECTION_FILTERS,
]);

/** Filters the library implements and tea-edge leaves to it. */
export const LIBRARY_FILTERS: ReadonlySet<string> = new Set([
  'safe',
  'reverse',
  'sort',
  'unique',
  'title',
  'indent',
  'abs',
  'items',
  'selectattr',
  'rejectattr',
  'dictsort',
]);
