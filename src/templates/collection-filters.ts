/**
 * Jinja's list filters that the library lacks: `sum`, `min`, `max`, `select`, `reject`, and
 * `wordcount`. Registered into the filter table by `template-filters.ts`.
 */
import { AgentError } from '../core/agent-error.js';
import {
  type RuntimeValue,
  isArray,
  isMapping,
  isNull,
  isNumber,
  isString,
  isUndefined,
  makeInteger,
  makeNumber,
  makeString,
  makeUndefined,
} from './jinja-runtime.js';
import { readAttributePath } from './read-member.js';
import type { RenderBudget } from './render-budget.js';
import { TEMPLATE_TESTS } from './template-tests.js';
import type { TemplateFilter } from './filter-types.js';
import { builtList } from './built-values.js';
import { toText } from './text-writer.js';

/** The list a filter walks; the walk is charged to the render's work. */
function listOf(operand: RuntimeValue, filter: string, budget: RenderBudget): RuntimeValue[] {
  if (isArray(operand)) {
    budget.work(operand.value.length);
    return operand.value;
  }
  if (isUndefined(operand) || isNull(operand)) return [];
  if (isMapping(operand))
    return Array.from((operand.value as Map<string, RuntimeValue>).keys(), (key) => makeString(key));
  throw new AgentError('TEMPLATE_ERROR', `${filter}: expected a list, got ${operand.type}`);
}

function byAttribute(
  items: RuntimeValue[],
  keywords: ReadonlyMap<string, RuntimeValue>,
  budget: RenderBudget,
): RuntimeValue[] {
  const attribute = keywords.get('attribute');
  if (attribute === undefined) return items;
  const path = toText(attribute, budget);
  return items.map((item) => readAttributePath(item, path));
}

/** Orders numbers and strings (case-insensitive unless asked); mixed kinds are an error. */
function compare(left: RuntimeValue, right: RuntimeValue, caseSensitive: boolean): number {
  if (isNumber(left) && isNumber(right)) return left.value - right.value;
  if (isString(left) && isString(right)) {
    const [a, b] = caseSensitive ? [left.value, right.value] : [left.value.toLowerCase(), right.value.toLowerCase()];
    return a < b ? -1 : a > b ? 1 : 0;
  }
  throw new AgentError('TEMPLATE_ERROR', `cannot compare ${left.type} with ${right.type}`);
}

function extreme(sign: 1 | -1, name: string): TemplateFilter {
  return (operand, _args, keywords, context) => {
    const items = byAttribute(listOf(operand, name, context.budget), keywords, context.budget);
    const caseSensitive = keywords.get('case_sensitive')?.__bool__().value ?? false;
    let best: RuntimeValue | undefined;
    for (const item of items) if (best === undefined || sign * compare(item, best, caseSensitive) > 0) best = item;
    return best ?? makeUndefined();
  };
}

const sum: TemplateFilter = (operand, args, keywords, context) => {
  const start = args[1] ?? keywords.get('start') ?? makeInteger(0);
  const attribute = args[0] ?? keywords.get('attribute');
  const items = listOf(operand, 'sum', context.budget);
  const path = attribute === undefined ? undefined : toText(attribute, context.budget);
  let total = isNumber(start) ? start.value : 0;
  for (const item of path === undefined ? items : items.map((entry) => readAttributePath(entry, path))) {
    if (!isNumber(item)) throw new AgentError('TEMPLATE_ERROR', `sum: expected numbers, got ${item.type}`);
    total += item.value;
  }
  return makeNumber(total);
};

function selectBy(keep: boolean, name: string): TemplateFilter {
  return (operand, args, _keywords, context) => {
    const testName = args[0];
    if (testName !== undefined && !isString(testName))
      throw new AgentError('TEMPLATE_ERROR', `${name}: the test name must be a string`);
    const test = testName === undefined ? undefined : TEMPLATE_TESTS.get(testName.value);
    if (testName !== undefined && test === undefined) {
      throw new AgentError(
        'TEMPLATE_ERROR',
        `${name}: unknown test '${testName.value}' (known: ${[...TEMPLATE_TESTS.keys()].join(', ')})`,
      );
    }
    const passes = (item: RuntimeValue) => (test === undefined ? item.__bool__().value : test(item));
    return builtList(
      listOf(operand, name, context.budget).filter((item) => passes(item) === keep),
      context.budget,
    );
  };
}

/** The filters of this file by name. */
export const COLLECTION_FILTERS: ReadonlyArray<[string, TemplateFilter]> = [
  ['sum', sum],
  ['min', extreme(-1, 'min')],
  ['max', extreme(1, 'max')],
  ['select', selectBy(true, 'select')],
  ['reject', selectBy(false, 'reject')],
  [
    'wordcount',
    (operand, _args, _keywords, context) => makeInteger(countWords(toText(operand, context.budget), context.budget)),
  ],
];

/** Words separated by whitespace; the scan is charged as work (it reads the whole text). */
function countWords(text: string, budget: RenderBudget): number {
  budget.work(text.length);
  let count = 0;
  for (const _match of text.matchAll(/\S+/g)) count++;
  return count;
}
