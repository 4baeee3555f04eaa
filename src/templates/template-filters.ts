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
} from './jinja-runtime.js';
import type { RenderBudget } from './render-budget.js';
import { TextWriter, toText } from './text-writer.js';
import { builtList, builtString } from './built-values.js';
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

function stringArgument(
  args: RuntimeValue[],
  keywords: ReadonlyMap<string, RuntimeValue>,
  index: number,
  name: string,
  fallback: string,
  budget: RenderBudget,
): string {
  const value = argument(args, keywords, index, name);
  return value === undefined ? fallback : toText(value, budget);
}

function numberArgument(args: RuntimeValue[], keywords: ReadonlyMap<string, RuntimeValue>, index: number, name: string, fallback: number): number {
  const value = argument(args, keywords, index, name);
  if (value === undefined) return fallback;
  if (isNumber(value)) return value.value;
  throw new AgentError('TEMPLATE_ERROR', `argument '${name}' must be a number, got ${value.type}`);
}

function textFilter(transform: (text: string) => string): TemplateFilter {
  return (operand, _args, _keywords, context) => builtString(transform(toText(operand, context.budget)), context.budget);
}

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

function itemsOf(operand: RuntimeValue, filter: string, budget: RenderBudget): RuntimeValue[] {
  if (isArray(operand)) return operand.value;
  if (isString(operand)) {
    // One value per character: charged before they are made.
    budget.work(operand.value.length);
    return Array.from(operand.value, (character) => makeString(character));
  }
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
  const onFalsy = flag !== undefined && flag.__bool__().value;
  if (isUndefined(operand)) return fallback;
  // Python truthiness (the library's __bool__): the falsy words of conditions do not count here.
  if (onFalsy && !operand.__bool__().value) return fallback;
  return operand;
};

const joinFilter: TemplateFilter = (operand, args, keywords, context) => {
  const { budget } = context;
  const separator = stringArgument(args, keywords, 0, 'd', '', budget);
  const attribute = argument(args, keywords, 1, 'attribute');
  const path = attribute === undefined ? undefined : toText(attribute, budget);
  return makeString(joinTexts(itemsOf(operand, 'join', budget), separator, budget, path));
};

/**
 * The items' texts joined by `separator`, written into one writer that stops at the size cap
 * (each item printed as it is reached, never all of them first). Charged to the render's work.
 */
export function joinTexts(items: readonly RuntimeValue[], separator: string, budget: RenderBudget, path?: string): string {
  const writer = new TextWriter(budget.limits.maxOutputChars);
  for (let index = 0; index < items.length; index++) {
    if (index > 0) writer.write(separator);
    const item = path === undefined ? items[index]! : readAttributePath(items[index]!, path);
    if (item.type !== 'NullValue' && item.type !== 'UndefinedValue') writer.writeValue(item);
  }
  budget.work(writer.length + items.length);
  return writer.text();
}

const firstFilter: TemplateFilter = (operand, _args, _keywords, context) => itemsOf(operand, 'first', context.budget)[0] ?? makeUndefined();
const lastFilter: TemplateFilter = (operand, _args, _keywords, context) => itemsOf(operand, 'last', context.budget).at(-1) ?? makeUndefined();

const mapFilter: TemplateFilter = (operand, args, keywords, context) => {
  const items = itemsOf(operand, 'map', context.budget);
  context.budget.work(items.length);
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

const replaceFilter: TemplateFilter = (operand, args, keywords, context) => {
  const { budget } = context;
  const count = argument(args, keywords, 2, 'count');
  const text = pythonReplace(
    toText(operand, budget),
    stringArgument(args, keywords, 0, 'old', '', budget),
    stringArgument(args, keywords, 1, 'new', '', budget),
    count !== undefined && isNumber(count) ? count.value : -1,
    budget.limits.maxOutputChars,
  );
  return builtString(text, budget);
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

const roundFilter: TemplateFilter = (operand, args, keywords, context) => {
  if (!isNumber(operand)) throw new AgentError('TEMPLATE_ERROR', `round: expected a number, got ${operand.type}`);
  const precision = numberArgument(args, keywords, 0, 'precision', 0);
  const method = stringArgument(args, keywords, 1, 'method', 'common', context.budget);
  if (method !== 'common' && method !== 'ceil' && method !== 'floor') {
    throw new AgentError('TEMPLATE_ERROR', `round: method must be 'common', 'ceil' or 'floor', got '${method}'`);
  }
  return makeFloat(roundNumber(operand.value, Math.trunc(precision), method));
};

const truncateFilter: TemplateFilter = (operand, args, keywords, context) => {
  const { budget } = context;
  const killWords = argument(args, keywords, 1, 'killwords');
  const text = truncateText(
    toText(operand, budget),
    numberArgument(args, keywords, 0, 'length', 255),
    killWords !== undefined && killWords.__bool__().value,
    stringArgument(args, keywords, 2, 'end', '...', budget),
    numberArgument(args, keywords, 3, 'leeway', 5),
  );
  return builtString(text, budget);
};

const trimFilter: TemplateFilter = (operand, args, keywords, context) => {
  const { budget } = context;
  const chars = argument(args, keywords, 0, 'chars');
  if (chars === undefined) return textFilter((text) => text.trim())(operand, args, keywords, context);
  const set = new Set(Array.from(toText(chars, budget)));
  const text = toText(operand, budget);
  // One array slot per character: charged before it is made.
  budget.work(text.length);
  const characters = Array.from(text);
  let start = 0;
  let end = characters.length;
  while (start < end && set.has(characters[start]!)) start++;
  while (end > start && set.has(characters[end - 1]!)) end--;
  return builtString(characters.slice(start, end).join(''), budget);
};

/**
 * Jinja's `indent(width=4, first=False, blank=False)`: `width` is a number of spaces or an indent
 * string. The result size (lines × indent) is checked before the indent is even made.
 */
const indentFilter: TemplateFilter = (operand, args, keywords, context) => {
  const { budget } = context;
  const width = argument(args, keywords, 0, 'width') ?? makeInteger(4);
  if (!isString(width) && !(isNumber(width) && Number.isInteger(width.value) && width.value >= 0)) {
    throw new AgentError('TEMPLATE_ERROR', `indent: width must be a whole number of spaces or a string, got ${toText(width, budget).slice(0, 50)}`);
  }
  const first = argument(args, keywords, 1, 'first')?.__bool__().value ?? false;
  const blank = argument(args, keywords, 2, 'blank')?.__bool__().value ?? false;
  const text = toText(operand, budget);
  const lines = text.split('\n');
  const indented = (line: string, index: number) => (index > 0 || first) && (blank || line !== '');
  const count = lines.reduce((total, line, index) => total + (indented(line, index) ? 1 : 0), 0);
  const unitLength = isString(width) ? width.value.length : width.value;
  budget.size(text.length + unitLength * count);
  const unit = isString(width) ? width.value : ' '.repeat(count === 0 ? 0 : unitLength);
  return builtString(lines.map((line, index) => (indented(line, index) ? unit + line : line)).join('\n'), budget);
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
  ['indent', indentFilter],
  ['round', roundFilter],
  ['bool', (operand) => makeBoolean(operand.__bool__().value)],
  ['list', (operand, _args, _keywords, context) => builtList(itemsOf(operand, 'list', context.budget).slice(), context.budget)],
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
  'abs',
  'items',
  'selectattr',
  'rejectattr',
  'dictsort',
]);
