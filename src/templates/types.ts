/** Compiled template handles, produced once at agent load and rendered many times. */

/** What a template sees: `state`, `variables`, `settings`, `secrets`, optional `env`, extras. */
export type TemplateScope = Record<string, unknown>;

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
