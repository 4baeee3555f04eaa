/**
 * A host's model key (TEA_LLM_API_KEY, --llm-api-key, a worker's LLM_API_KEY) is bound to the
 * endpoint the host chose, so a downloaded agent cannot send it to its own server:
 *
 * - the host gave a URL (`--llm-base-url`): the key goes to that URL's origin only;
 * - the host named a provider (`--llm-provider openai`): to that preset's origin only;
 * - the host gave a key alone: to the origins of the built-in presets only (an agent saying
 *   `provider: openai` still works; `api_base: https://attacker.example` gets no key).
 *
 * Everywhere else the call goes out with the agent's own `api_key` if it has one, else with none.
 */
import { PROVIDER_PRESETS, presetApiBase } from './presets.js';
import type { LlmConnection } from '../core/model-provider.js';

/** Stands for "the page's own origin": an api_base given as an absolute path (`/llm/v1`). */
const SAME_ORIGIN = 'same-origin';

const PRESET_ORIGINS: readonly string[] = Object.values(PROVIDER_PRESETS).map((base) => originOf(base)!);

/** The origin a base URL sends to, or undefined when it is not an http(s) URL or absolute path. */
export function originOf(base: string | undefined): string | undefined {
  if (base === undefined) return undefined;
  if (/^\/(?!\/)/.test(base)) return SAME_ORIGIN;
  if (!/^https?:\/\//i.test(base)) return undefined;
  try {
    return new URL(base).origin;
  } catch {
    return undefined;
  }
}

/** The base URL a connection will call (its api_base, else its provider's preset). */
function endpointOf(connection: LlmConnection): string | undefined {
  if (connection.api_base !== undefined) return connection.api_base;
  const provider = connection.provider?.trim().toLowerCase();
  return provider === undefined ? undefined : presetApiBase(provider);
}

/** True when the host's key may be sent on `connection`, given the host's own overrides. */
export function hostKeyMaySendTo(
  connection: LlmConnection,
  overrides: { api_base?: unknown; provider?: unknown },
): boolean {
  const target = originOf(endpointOf(connection));
  if (target === undefined) return false;
  if (typeof overrides.api_base === 'string' && overrides.api_base !== '')
    return originOf(overrides.api_base) === target;
  if (typeof overrides.provider === 'string' && overrides.provider !== '') {
    return originOf(presetApiBase(overrides.provider.trim().toLowerCase())) === target;
  }
  return PRESET_ORIGINS.includes(target);
}
