/**
 * `env.*` in templates reads only variables the host passes by name (the CLI: `--env NAME` and the
 * agent's `settings.env` list), never the whole process environment. The host's model key is never
 * among them: naming it is refused (an error, not a silent drop, so the author learns at once why
 * `env.TEA_LLM_API_KEY` is empty; a key reaches the model through the host, not the agent).
 */

/** The variables the hosts read the model key from (the CLI's and the workers'). */
export const MODEL_KEY_VARIABLES: readonly string[] = ['TEA_LLM_API_KEY', 'LLM_API_KEY'];

/** A variable name as shells write them. */
export const ENV_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Why `name` cannot be passed to templates as `env.<name>`, or undefined when it can. */
export function envNameRefusal(name: string): string | undefined {
  if (!ENV_NAME_PATTERN.test(name)) return `'${name}' is not a variable name (letters, digits and _, not starting with a digit)`;
  if (MODEL_KEY_VARIABLES.includes(name.toUpperCase())) {
    return `${name} holds the host's model key, which templates never see; the host sends it to the model itself (--llm-api-key / TEA_LLM_API_KEY)`;
  }
  return undefined;
}
