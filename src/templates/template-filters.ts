/**
 * The filters tea-edge defines itself (docs/spec.md#2-templates), checked before the library's own. They take any
 * operand type the way Jinja does (`upper` on a number works), treat a missing value as empty,
 * and count the strings and lists they build against the render budget.
 */
import { AgentError } from '../core/agent-error.js';
import { COLLECTION_FILTERS } from './collection-filters.js';
import { TEXT_FILTERS } from './text-filters.js';
import { argument, itemsOf, numberArgument, stringArgument } from './filter-inputs.js';
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
} from './jinja-runtime.js';
import { type RenderBudget, UNITS_PER_MADE_VALUE } from './render-budget.js';
import { toText } from './text-writer.js';
import { sha256Hex } from '../util/sha256.js';
import { builtList, builtString } from './built-values.js';
import { readAttributePath } from './read-member.js';
import type { FilterContext, TemplateFilter } from './filter-types.js';
import { type FormatArgument, parseFloatText, parseIntegerText, percentFormat, roundNumber } from './text-helpers.js';

/** Code-point counts of strings already measured (a string read in a loop is scanned once). */
const codePointCounts = new WeakMap<RuntimeValue, number>();

/** Python's `len` of a string: code points, counted without copying; the scan is charged once. */
function codePointCount(operand: RuntimeValue & { value: string }, budget: RenderBudget): number {
  const known = codePointCounts.get(operand);
  if (known !== undefined) return known;
  const text = operand.value;
  budget.work(text.length);
  let count = text.length;
  for (let index = 0; index < text.length - 1; index++) {
    const code = text.charCodeAt(index);
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        count--;
        index++;
      }
    }
  }
  codePointCounts.set(operand, count);
  return count;
}

function sizeOf(operand: RuntimeValue, budget: RenderBudget): number {
  if (isString(operand)) return codePointCount(operand, budget);
  if (isArray(operand)) return operand.value.length;
  if (isMapping(operand)) return operand.value.size;
  if (isUndefined(operand) || isNull(operand)) return 0;
  throw new AgentError('TEMPLATE_ERROR', `length: a ${operand.type} has no length`);
}

const toJson: TemplateFilter = (operand, args, keywords, context) => {
  const indent = argument(args, keywords, 0, 'indent');
  if (indent !== undefined && !isNumber(indent) && !isString(indent) && !isNull(indent)) {
    throw new AgentError('TEMPLATE_ERROR', 'tojson: indent must be a number or a string');
  }
  const indentValue = indent === undefined || isNull(indent) ? null : (indent.value as number | string);
  return makeString(formatJson(operand, indentValue, context.budget));
};

const fromJson: TemplateFilter = (operand, _args, _keywords, context) => {
  if (!isString(operand)) return operand;
  // Parsing reads the whole text and makes a value for each part of it.
  context.budget.work(operand.value.length);
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
  const onFalsy = flag?.__bool__().value === true;
  if (isUndefined(operand)) return fallback;
  // Python truthiness (the library's __bool__): the falsy words of conditions do not count here.
  if (onFalsy && !operand.__bool__().value) return fallback;
  return operand;
};

/** The first or last character of a text (a whole code point), without splitting the text. */
function endCharacter(text: string, last: boolean): RuntimeValue {
  if (text === '') return makeUndefined();
  if (!last) return makeString(String.fromCodePoint(text.codePointAt(0)!));
  const low = text.charCodeAt(text.length - 1);
  const pair =
    text.length > 1 &&
    low >= 0xdc00 &&
    low <= 0xdfff &&
    text.charCodeAt(text.length - 2) >= 0xd800 &&
    text.charCodeAt(text.length - 2) <= 0xdbff;
  return makeString(text.slice(pair ? -2 : -1));
}

const firstFilter: TemplateFilter = (operand, _args, _keywords, context) =>
  isString(operand)
    ? endCharacter(operand.value, false)
    : (itemsOf(operand, 'first', context.budget)[0] ?? makeUndefined());
const lastFilter: TemplateFilter = (operand, _args, _keywords, context) =>
  isString(operand)
    ? endCharacter(operand.value, true)
    : (itemsOf(operand, 'last', context.budget).at(-1) ?? makeUndefined());

const mapFilter: TemplateFilter = (operand, args, keywords, context) => {
  const items = itemsOf(operand, 'map', context.budget);
  // A value is made (or a filter run) for each item.
  context.budget.work(items.length * UNITS_PER_MADE_VALUE);
  const attribute = keywords.get('attribute');
  if (attribute !== undefined) {
    const path = toText(attribute, context.budget);
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

/** Parsing a number out of a text reads all of it: charged as a scan. */
function chargeParse(operand: RuntimeValue, budget: RenderBudget): void {
  if (isString(operand)) budget.work(operand.value.length);
}

const intFilter: TemplateFilter = (operand, args, keywords, context) => {
  chargeParse(operand, context.budget);
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

const floatFilter: TemplateFilter = (operand, args, keywords, context) => {
  chargeParse(operand, context.budget);
  const fallback = argument(args, keywords, 0, 'default') ?? makeFloat(0);
  if (isNumber(operand)) return makeFloat(operand.value);
  if (isBoolean(operand)) return makeFloat(operand.value ? 1 : 0);
  if (isString(operand)) {
    const parsed = parseFloatText(operand.value);
    return parsed === undefined ? fallback : makeFloat(parsed);
  }
  return fallback;
};

const roundFilter: TemplateFilter = (operand, args, keywords, context) => {
  if (!isNumber(operand)) throw new AgentError('TEMPLATE_ERROR', `round: expected a number, got ${operand.type}`);
  const precision = numberArgument(args, keywords, 0, 'precision', 0);
  const method = stringArgument(args, keywords, 1, 'method', 'common', context.budget);
  if (method !== 'common' && method !== 'ceil' && method !== 'floor') {
    throw new AgentError('TEMPLATE_ERROR', `round: method must be 'common', 'ceil' or 'floor', got '${method}'`);
  }
  return makeFloat(roundNumber(operand.value, Math.trunc(precision), method));
};

/**
 * TEA's `sha256`: the hex digest of the value's text as UTF-8. A string hashes exactly as in TEA;
 * another value hashes the text `{{ value }}` prints (TEA hashes Python's `str()` of it).
 */
const sha256Filter: TemplateFilter = (operand, _args, _keywords, context) => {
  const text = isString(operand) ? operand.value : toText(operand, context.budget);
  // Hashing reads every byte once (a code unit is at most 3 UTF-8 bytes).
  context.budget.work(text.length * 3);
  return makeString(sha256Hex(text));
};

const stringFilter: TemplateFilter = (operand, _args, _keywords, context) => {
  const text = toText(operand, context.budget);
  context.budget.size(text.length);
  return makeString(text);
};

/** An argument of `%` formatting: its printed text and, when it is a number (or boolean), the number. */
export function formatArgument(value: RuntimeValue, budget: RenderBudget): FormatArgument {
  const number = isNumber(value) ? value.value : isBoolean(value) ? Number(value.value) : undefined;
  return { text: toText(value, budget), number };
}

/** `'%.2f' | format(x)` and `'%s=%s' % (a, b)`: Python `%` formatting, within the size cap. */
export function formatValues(template: RuntimeValue, values: RuntimeValue[], context: FilterContext): RuntimeValue {
  const { budget } = context;
  const args = values.map((value) => formatArgument(value, budget));
  return builtString(percentFormat(toText(template, budget), args, budget.limits.maxOutputChars), budget);
}

/** tea-edge's filters by name (aliases included). A constant table; never changed at run time. */
export const TEMPLATE_FILTERS: ReadonlyMap<string, TemplateFilter> = new Map<string, TemplateFilter>([
  ['tojson', toJson],
  ['json', toJson],
  ['fromjson', fromJson],
  ['default', defaultFilter],
  ['d', defaultFilter],
  ['length', (operand, _args, _keywords, context) => makeInteger(sizeOf(operand, context.budget))],
  ['count', (operand, _args, _keywords, context) => makeInteger(sizeOf(operand, context.budget))],
  ['first', firstFilter],
  ['last', lastFilter],
  ['map', mapFilter],
  ['int', intFilter],
  ['float', floatFilter],
  ['string', stringFilter],
  ['round', roundFilter],
  ['bool', (operand) => makeBoolean(operand.__bool__().value)],
  [
    'list',
    (operand, _args, _keywords, context) => builtList(itemsOf(operand, 'list', context.budget).slice(), context.budget),
  ],
  ['format', (operand, args, _keywords, context) => formatValues(operand, args, context)],
  ['sha256', sha256Filter],
  ...TEXT_FILTERS,
  ...COLLECTION_FILTERS,
]);

/** Filters the library implements and tea-edge leaves to it. */
export const LIBRARY_FILTERS: ReadonlySet<string> = new Set([
  'safe',
  'reverse',
  'sort',
  'unique',
  'title',
  'abs',
  'items',
  'selectattr',
  'rejectattr',
  'dictsort',
]);
