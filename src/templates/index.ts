/**
 * Agent templates (docs/spec.md#2-templates): Jinja syntax over @huggingface/jinja, parsed once at agent load and
 * rendered by an interpreter that never generates code.
 */

// Compiling templates, values and conditions
export { compileTemplate } from './compile-template.js';
export { compileValue, hasTemplateSyntax } from './compile-value.js';
export { compileCondition } from './compile-condition.js';

// Truthiness and limits
export { isTruthy } from './is-truthy.js';
export { DEFAULT_TEMPLATE_LIMITS, resolveTemplateLimits } from './render-budget.js';

// Types
export type {
  CompiledCondition,
  CompiledTemplate,
  CompiledValue,
  ConditionResult,
  TemplateLimits,
  TemplateLocation,
  TemplateOptions,
  TemplateScope,
} from './types.js';
