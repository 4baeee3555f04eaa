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
  ['string', (operand) => operand.type === 'StringValue'],
  ['number', (operand) => operand.type === 'IntegerValue' || operand.type === 'FloatValue'],
  ['integer', (operand) => operand.type === 'IntegerValue'],
  ['boolean', (operand) => operand.type === 'BooleanValue'],
  ['odd', (operand) => operand.type === 'IntegerValue' && Math.abs(operand.value as number) % 2 === 1],
  ['even', (operand) => operand.type === 'IntegerValue' && (operand.value as number) % 2 === 0],
  ['true', (operand) => operand.type === 'BooleanValue' && operand.value === true],
  ['false', (operand) => operand.type === 'BooleanValue' && operand.value === false],
]);

/** Tests the library implements and tea-edge leaves to it. */
export const LIBRARY_TESTS: ReadonlySet<string> = new Set(['callable', 'iterable', 'sequence', 'lower', 'upper']);
