/** Compiled template handles, produced once at agent load and rendered many times. */

// The scope and compiled-value contracts actions see live in src/core/template-scope.ts.
export { TEMPLATE_CLOCK } from '../core/template-scope.js';
export type { CompiledValue, TemplateScope } from '../core/template-scope.js';
import type { TemplateScope } from '../core/template-scope.js';

/** Where a template sits in the agent file; named in every template error. */
export interface TemplateLocation {
  agent?: string;
  file?: string;
  node?: string;
  /** Dotted field path, e.g. `with.prompt` or `goto[1].if`. */
  field?: string;
}

/** Caps on one render; exceeding any of them is `TEMPLATE_LIMIT`. All counted, never timed. */
export interface TemplateLimits {
  /** Characters of rendered output (and of any one string built while rendering). Default 1 MiB. */
  maxOutputChars: number;
  /** Loop iterations per render, over all loops together; also the largest `range()`. Default 100,000. */
  maxLoopIterations: number;
  /** Expression evaluations per render: stops recursion and filter bombs loops do not see. Default 1,000,000. */
  maxEvaluationSteps: number;
  /** Nesting of calls (macros, functions). Default 64. */
  maxCallDepth: number;
  /**
   * Work over the whole render, in characters and list items built or printed: every string a
   * filter, method or operator makes, every value turned into text, every list built by `*`, `+`
   * or a filter (a list holding the same big list many times counts it each time). Default 16 Mi.
   */
  maxWorkUnits: number;
}

/** Options for compiling templates. */
export interface TemplateOptions {
  limits?: Partial<TemplateLimits>;
  /** Always use the interpreter, never the plain-path fast path (for tests and benchmarks). */
  interpretOnly?: boolean;
}

/** One template string parsed once; `render` walks the kept syntax tree. */
export interface CompiledTemplate {
  readonly source: string;
  /** True when the string is exactly one `{{ expr }}`: render returns the native value. */
  readonly isLone: boolean;
  /** Renders; throws AgentError `TEMPLATE_ERROR` or `TEMPLATE_LIMIT` naming the location. */
  render(scope: TemplateScope): unknown;
}

/** The outcome of a condition: the native value and its truthiness (see `isTruthy`). */
export interface ConditionResult {
  value: unknown;
  truthy: boolean;
}

/** An `if:`/`when:` expression compiled once. */
export interface CompiledCondition {
  /** The expression as written (a boolean or number constant as its text). */
  readonly source: string;
  evaluate(scope: TemplateScope): ConditionResult;
}
