/**
 * tea-edge's text filters: `upper`, `lower`, `capitalize`, `trim`, `truncate`, `replace`, `join`,
 * `indent`. Each result is checked against the size cap, and charged as work, before it is used;
 * `join` and `indent` check the size before building at all.
 */
import { AgentError } from '../core/agent-error.js';
import { type RuntimeValue, isNumber, isString, makeInteger, makeString } from './jinja-runtime.js';
import type { RenderBudget } from './render-budget.js';
import { TextWriter, toText } from './text-writer.js';
import { builtString } from './built-values.js';
import { readAttributePath } from './read-member.js';
import { pythonReplace, truncateText } from './text-helpers.js';
import { argument, itemsOf, numberArgument, stringArgument } from './filter-inputs.js';
import type { TemplateFilter } from './filter-types.js';
import { quoteText } from '../util/cut-text.js';

function textFilter(transform: (text: string) => string): TemplateFilter {
  return (operand, _args, _keywords, context) =>
    builtString(transform(toText(operand, context.budget)), context.budget);
}

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
export function joinTexts(
  items: readonly RuntimeValue[],
  separator: string,
  budget: RenderBudget,
  path?: string,
): string {
  const writer = new TextWriter(budget.limits.maxOutputChars);
  for (let index = 0; index < items.length; index++) {
    if (index > 0) writer.write(separator);
    const item = path === undefined ? items[index]! : readAttributePath(items[index]!, path);
    if (item.type !== 'NullValue' && item.type !== 'UndefinedValue') writer.writeValue(item);
  }
  budget.work(writer.length + items.length);
  return writer.text();
}

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

const truncateFilter: TemplateFilter = (operand, args, keywords, context) => {
  const { budget } = context;
  const killWords = argument(args, keywords, 1, 'killwords');
  const text = truncateText(
    toText(operand, budget),
    numberArgument(args, keywords, 0, 'length', 255),
    killWords?.__bool__().value === true,
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
    throw new AgentError(
      'TEMPLATE_ERROR',
      `indent: width must be a whole number of spaces or a string, got ${quoteText(toText(width, budget), 50)}`,
    );
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

/** The filters of this file by name. */
export const TEXT_FILTERS: ReadonlyArray<[string, TemplateFilter]> = [
  ['join', joinFilter],
  ['upper', textFilter((text) => text.toUpperCase())],
  ['lower', textFilter((text) => text.toLowerCase())],
  ['capitalize', textFilter((text) => text.charAt(0).toUpperCase() + text.slice(1).toLowerCase())],
  ['trim', trimFilter],
  ['truncate', truncateFilter],
  ['replace', replaceFilter],
  ['indent', indentFilter],
];
