/**
 * `env.*` in templates reads only variables the host passes by name (the CLI: `--env NAME` and the
 * agent's `settings.env` list), never the whole process environment. The host's model key is never
 * among them: naming it is refused (an error, not a silent drop, so the author learns at once why
 * `env.TEA_LLM_API_KEY` is empty; a key reaches the model through the host, not the agent).
 */
import { AgentError } from '../core/agent-error.js';

/** The variables the hosts read the model key from (the CLI's and the workers'). */
export const MODEL_KEY_VARIABLES: readonly string[] = ['TEA_LLM_API_KEY', 'LLM_API_KEY'];

/** A variable name as shells write them. */
export const ENV_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Why `name` cannot be passed to templates as `env.<name>`, or undefined when it can. */
export function envNameRefusal(name: string): string | undefined {
  if (!ENV_NAME_PATTERN.test(name))
    return `'${name}' is not a variable name (letters, digits and _, not starting with a digit)`;
  if (MODEL_KEY_VARIABLES.includes(name.toUpperCase())) {
    return `${name} holds the host's model key, which templates never see; the host sends it to the model itself (--llm-api-key / TEA_LLM_API_KEY)`;
  }
  return undefined;
}

/**
 * The secrets a host gives agents (`secrets.NAME` in templates, `{secret: NAME}` in MCP headers),
 * from variables it names explicitly: the CLI's `--secret NAME`, a worker's `AGENT_SECRETS`
 * list. Every name must be a variable name, not the model key's, and set: a secret named but
 * missing is refused (where: the flag or variable that named it), never passed as empty. Hosts
 * redact every value from what they print, store and answer.
 */
export function secretsFromNames(
  names: readonly string[],
  lookup: (name: string) => string | undefined,
  where: string,
): Record<string, string> {
  const secrets: Record<string, string> = {};
  for (const name of names) {
    const refusal = envNameRefusal(name);
    if (refusal !== undefined)
      throw new AgentError(
        'HOST_CONFIG',
        `${where}: ${refusal.replace('templates never see', 'agents never get as a secret')}`,
        { field: where },
      );
    const value = lookup(name);
    if (value === undefined || value === '')
      throw new AgentError('HOST_CONFIG', `${where}: ${name} is not set, so there is no secret to give`, {
        field: where,
      });
    secrets[name] = value;
  }
  return secrets;
}
