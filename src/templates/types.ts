/** Compiled template handles, produced once at agent load and rendered many times. */

/**
 * The clock `now()` reads, as a symbol key of a scope (templates cannot see symbol keys): the run
 * puts its own clock there so tests can fix it. Without it, `now()` reads `Date.now()`.
 */
export const TEMPLATE_CLOCK: unique symbol = Symbol.for('tea-edge.templateClock');

/** What a template sees: `state`, `variables`, `settings`, `secrets`, optional `env`, extras. */
export type TemplateScope = Record<string, unknown> & { [TEMPLATE_CLOCK]?: () => number };

/**
 * A value from the agent file with every string parsed as a template: objects and lists are walked,
 * strings rendered, other scalars returned as they are. A string that is exactly one `{{ expr }}`
 * renders to the native value; other strings render to strings.
 */
export interface CompiledValue {
  /** The value as written in the agent file. */
  readonly source: unknown;
  /** True when no string inside contains template syntax (render returns a copy of source). */
  readonly isStatic: boolean;
  render(scope: TemplateScope): unknown;
}

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
