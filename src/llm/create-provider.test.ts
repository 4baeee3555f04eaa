import { describe, expect, it } from 'vitest';
import { createProvider } from './create-provider.js';
import { isScriptedModel } from './scripted-model.js';
import { PROVIDER_PRESETS } from './presets.js';

/** The URL a provider posts to, seen through a recording fetch. */
async function urlOf(connection: Parameters<typeof createProvider>[0]): Promise<string> {
  let seen = '';
  const fetchFunction = (async (url: string) => {
    seen = url;
    return new Response(JSON.stringify({ choices: [{ message: { content: 'x' }, finish_reason: 'stop' }] }), {
      headers: { 'content-type': 'application/json' },
    });
  }) as unknown as typeof fetch;
  await createProvider(connection, { fetch: fetchFunction }).generate({ messages: [{ role: 'user', content: 'x' }] });
  return seen;
}

const code = (action: () => unknown): string => {
  try {
    action();
  } catch (error) {
    return (error as { code: string }).code;
  }
  return 'no error';
};

describe('createProvider', () => {
  it.each(Object.entries(PROVIDER_PRESETS))('%s posts to its preset base', async (provider, base) => {
    expect(await urlOf({ provider })).toBe(`${base}/chat/completions`);
  });

  it('api_base wins over the preset; a path is allowed', async () => {
    expect(await urlOf({ provider: 'ollama', api_base: 'http://gpu-box:11434/v1/' })).toBe(
      'http://gpu-box:11434/v1/chat/completions',
    );
    expect(await urlOf({ api_base: '/llm/v1' })).toBe('/llm/v1/chat/completions');
  });

  it('builds the scripted model for provider scripted, or a script without an endpoint', () => {
    expect(isScriptedModel(createProvider({ provider: 'scripted', scripted: ['a'] }))).toBe(true);
    expect(isScriptedModel(createProvider({ scripted: ['a'] }))).toBe(true);
    expect(isScriptedModel(createProvider({ api_base: 'http://x/v1', scripted: ['a'] }))).toBe(false);
  });

  it('refuses what cannot work, with codes', () => {
    expect(code(() => createProvider({ provider: 'azure' }))).toBe('UNKNOWN_PROVIDER');
    expect(code(() => createProvider({ provider: 'scripted' }))).toBe('INVALID_PARAMS');
    expect(code(() => createProvider({ api_base: 'ftp://x' }))).toBe('INVALID_PARAMS');
    expect(code(() => createProvider({}))).toBe('LLM_UNAVAILABLE');
  });
});
