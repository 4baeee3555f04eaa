/**
 * Jinja tests (`x is defined`) that tea-edge defines itself, checked before the library's.
 * `none` is also true for a missing value: TEA agents write `state.x is none` to mean "no value"
 * (TEA turns missing keys into None), and `is defined` still tells the two apart.
 */
import { type RuntimeValue, isArray, isMapping, isNull, isUndefined } from './jinja-runtime.js';

export type TemplateTest = (operand: RuntimeValue) => boolean;

/** tea-edge's tests by name. A constant table; never changed at run time. */
export const TEMPLATE_TESTS: ReadonlyMap<string, TemplateTest> = new Map<string, TemplateTest>([
  ['defined', (operand) => !isUndefined(operand)],
  ['undefined', (operand) => isUndefined(operand)],
  ['none', (operand) => isNull(operand) || isUndefined(operand)],
  ['float', (operand) => operand.type === 'FloatValue'],
  ['list', (operand) => isArray(operand)],
  ['mapping', (operand) => isMapping(operand) && operand.type !== 'NamespaceValue'],
]);

/** Tests the library implements and tea-edge leaves to it. */
export const LIBRARY_TESTS: ReadonlySet<string> = new Set([
  'boolean',
  'callable',
  'odd',
  'even',
  'false',
  'true',
  'string',
  'number',
  'integer',
  'iterable',
  'sequence',
  'lower',
  'upper',
  'equalto',
  'eq',
]);
