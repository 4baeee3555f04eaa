/**
 * `compileCondition`: a `goto` rule's `if:` or an edge's `when:`. Either a bare expression
 * (`state.score > 0.8`) or a template string (`"{{ state.done }}"`); the result is the native
 * value and its truthiness by `isTruthy`.
 */
import { AgentError } from '../core/agent-error.js';
import { compileTemplate } from './compile-template.js';
import { hasTemplateSyntax } from './compile-value.js';
import { isTruthy } from './is-truthy.js';
import type { CompiledCondition, TemplateLocation, TemplateOptions } from './types.js';

/** Scope roots and constants; any other bare identifier is read from `state` (TEA's `when: done`). */
const SCOPE_NAMES: ReadonlySet<string> = new Set([
  'state',
  'variables',
  'settings',
  'secrets',
  'env',
  'result',
  'input',
  'true',
  'false',
  'none',
  'True',
  'False',
  'None',
]);
const BARE_IDENTIFIER = /^(!?)\s*([A-Za-z_][A-Za-z0-9_]*)$/;

/**
 * @example
 * const rule = compileCondition('state.score >= 0.8', { node: 'evaluate', field: 'goto[0].if' });
 * rule.evaluate({ state: { score: 0.9 } }); // { value: true, truthy: true }
 * compileCondition('{{ state.verdict }}', {}).evaluate({ state: { verdict: 'no' } }).truthy; // false
 */
export function compileCondition(
  source: unknown,
  where: TemplateLocation = {},
  options: TemplateOptions = {},
): CompiledCondition {
  if (typeof source === 'boolean' || typeof source === 'number' || source === null) {
    const result = { value: source, truthy: isTruthy(source) };
    return { source: String(source), evaluate: () => ({ ...result }) };
  }
  if (typeof source !== 'string') {
    throw new AgentError(
      'TEMPLATE_ERROR',
      `a condition must be an expression string, got ${Array.isArray(source) ? 'a list' : typeof source}`,
      { ...where },
    );
  }
  const text = source.trim();
  if (text === '') throw new AgentError('TEMPLATE_ERROR', 'a condition must not be empty', { ...where });
  const template = compileTemplate(hasTemplateSyntax(text) ? source : `{{ ${bareExpression(text)} }}`, where, options);
  return {
    source,
    evaluate(scope) {
      const value = template.render(scope);
      return { value, truthy: isTruthy(value) };
    },
  };
}

/** `done` → `state.done`, `!done` → `not state.done` (TEA's shorthand); anything else unchanged. */
function bareExpression(text: string): string {
  const match = BARE_IDENTIFIER.exec(text);
  if (match === null) return text;
  const [, negation, name] = match;
  const reference = SCOPE_NAMES.has(name!) ? name! : `state.${name}`;
  return negation === '!' ? `not ${reference}` : reference;
}
