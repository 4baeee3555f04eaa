/** Reading a filter's operand and arguments the way Jinja does (missing values as empty). */
import { AgentError } from '../core/agent-error.js';
import {
  type RuntimeValue,
  isArray,
  isMapping,
  isNull,
  isNumber,
  isString,
  isUndefined,
  makeString,
} from './jinja-runtime.js';
import { type RenderBudget, UNITS_PER_MADE_VALUE } from './render-budget.js';
import { toText } from './text-writer.js';

/** Positional argument `index`, else keyword `name`, else undefined. */
export function argument(
  args: RuntimeValue[],
  keywords: ReadonlyMap<string, RuntimeValue>,
  index: number,
  name: string,
): RuntimeValue | undefined {
  const value = args[index] ?? keywords.get(name);
  return value === undefined || isUndefined(value) ? undefined : value;
}

export function stringArgument(
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

export function numberArgument(
  args: RuntimeValue[],
  keywords: ReadonlyMap<string, RuntimeValue>,
  index: number,
  name: string,
  fallback: number,
): number {
  const value = argument(args, keywords, index, name);
  if (value === undefined) return fallback;
  if (isNumber(value)) return value.value;
  throw new AgentError('TEMPLATE_ERROR', `argument '${name}' must be a number, got ${value.type}`);
}

/** The items a filter walks: a list's, a text's characters, an object's keys. */
export function itemsOf(operand: RuntimeValue, filter: string, budget: RenderBudget): RuntimeValue[] {
  if (isArray(operand)) return operand.value;
  if (isString(operand)) {
    // One value per character: charged before they are made.
    budget.work(operand.value.length * UNITS_PER_MADE_VALUE);
    return Array.from(operand.value, (character) => makeString(character));
  }
  if (isMapping(operand))
    return Array.from((operand.value as Map<string, RuntimeValue>).keys(), (key) => makeString(key));
  if (isUndefined(operand) || isNull(operand)) return [];
  throw new AgentError('TEMPLATE_ERROR', `${filter}: expected a list, got ${operand.type}`);
}
