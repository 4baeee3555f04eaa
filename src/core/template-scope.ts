/**
 * What a template is rendered with, and a value of the agent file compiled once: the parts of the
 * template engine that actions see through ActionContext and ActionCompiler (src/core/action.ts).
 * Contracts only: this file imports nothing from src/.
 */

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
