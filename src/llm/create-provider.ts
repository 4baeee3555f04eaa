/**
 * The default ModelProviderFactory: the scripted model for `provider: scripted` (or a connection with
 * a script and no endpoint), else the OpenAI-compatible client at `api_base` or at the preset of
 * the named provider.
 */
import { AgentError } from '../core/agent-error.js';
import type { LlmConnection, ModelProvider } from '../core/model-provider.js';
import { createOpenAiClient, type OpenAiClientOptions } from './openai-client.js';
import { PROVIDER_NAMES, presetApiBase } from './presets.js';
import { createScriptedModel } from './scripted-model.js';
import { quoted, suggestionFor } from '../util/suggest.js';
import { cutText, quoteText } from '../util/cut-text.js';

/**
 * Chooses and builds the provider for a connection. Throws UNKNOWN_PROVIDER for an unknown provider
 * name, INVALID_PARAMS for a scripted provider without a script, LLM_UNAVAILABLE when no endpoint is configured.
 * @example
 * createProvider({ provider: 'ollama' }); // http://localhost:11434/v1
 * createProvider({ provider: 'scripted', scripted: ['Hello!'] });
 */
export function createProvider(connection: LlmConnection, options: OpenAiClientOptions = {}): ModelProvider {
  const provider = connection.provider?.trim().toLowerCase();
  if (
    provider === 'scripted' ||
    (provider === undefined && connection.api_base === undefined && connection.scripted !== undefined)
  ) {
    if (connection.scripted === undefined) {
      throw new AgentError(
        'INVALID_PARAMS',
        'provider "scripted" needs responses: set settings.llm.scripted (or `scripted:` on the call)',
        {
          field: 'scripted',
        },
      );
    }
    return createScriptedModel(
      connection.scripted,
      connection.scripted_start !== undefined ? { startAt: connection.scripted_start } : {},
    );
  }
  if (provider !== undefined && provider !== '' && !PROVIDER_NAMES.includes(provider)) {
    // A literal provider is checked at load; this catches one rendered from a template.
    throw new AgentError(
      'UNKNOWN_PROVIDER',
      `unknown LLM provider ${quoted(String(connection.provider))}${suggestionFor(provider, PROVIDER_NAMES)} (any other OpenAI-compatible server: give api_base)`,
      {
        field: 'provider',
        details: { provider: cutText(String(connection.provider), 100), known: PROVIDER_NAMES },
      },
    );
  }
  const apiBase = connection.api_base ?? (provider === undefined ? undefined : presetApiBase(provider));
  if (apiBase === undefined || apiBase === '') {
    throw new AgentError(
      'LLM_UNAVAILABLE',
      'no model endpoint configured: set settings.llm.provider (ollama, lmstudio, llamacpp, vllm, openai) or api_base, ' +
        'or pass --llm-base-url / TEA_LLM_BASE_URL',
      { field: 'api_base', details: { reason: 'no_endpoint', retryable: false } },
    );
  }
  // A path (`/llm/v1`) is allowed for pages that reach their model through a same-origin proxy.
  if (!/^https?:\/\//i.test(apiBase) && !/^\/(?!\/)/.test(apiBase)) {
    throw new AgentError(
      'INVALID_PARAMS',
      `api_base must be an http(s) URL or an absolute path, got ${quoteText(apiBase, 100)}`,
      { field: 'api_base' },
    );
  }
  return createOpenAiClient({ ...connection, api_base: apiBase }, options);
}
