/**
 * Provider presets: the default `api_base` of the local and hosted servers tea-edge knows by name,
 * so an author writes `provider: ollama` instead of a URL. Any other server is reached by giving
 * `api_base` (with `provider: openai-compatible` or no provider).
 */

/** Default OpenAI-compatible base URLs by provider name. */
export const PROVIDER_PRESETS: Readonly<Record<string, string>> = Object.freeze({
  ollama: 'http://localhost:11434/v1',
  lmstudio: 'http://localhost:1234/v1',
  llamacpp: 'http://localhost:8080/v1',
  vllm: 'http://localhost:8000/v1',
  openai: 'https://api.openai.com/v1',
});

/** Every provider name `createProvider` accepts. */
export const PROVIDER_NAMES: readonly string[] = Object.freeze([
  ...Object.keys(PROVIDER_PRESETS),
  'openai-compatible',
  'scripted',
]);

/** The preset base URL of a provider name, or undefined for names without one. */
export function presetApiBase(provider: string): string | undefined {
  return Object.hasOwn(PROVIDER_PRESETS, provider) ? PROVIDER_PRESETS[provider] : undefined;
}
