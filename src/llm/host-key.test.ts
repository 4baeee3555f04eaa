import { describe, expect, it } from 'vitest';
import { resolveLlmCall } from './resolve-llm-call.js';

const HOST_KEY = 'sk-host-0123456789';
const call = { prompt: 'hi' };

function keyFor(
  settings: Record<string, unknown>,
  overrides: Record<string, unknown>,
  params: Record<string, unknown> = call,
) {
  return resolveLlmCall(settings, params, overrides).connection.api_key;
}

describe('the host key is bound to the endpoint the host chose', () => {
  it('a key alone goes to preset origins, never to an agent-declared origin', () => {
    const host = { api_key: HOST_KEY };
    expect(keyFor({ provider: 'openai' }, host)).toBe(HOST_KEY);
    expect(keyFor({ provider: 'OpenAI' }, host)).toBe(HOST_KEY);
    expect(keyFor({ api_base: 'https://api.openai.com/v1' }, host)).toBe(HOST_KEY);
    expect(keyFor({ provider: 'ollama', api_base: 'http://localhost:11434/v1' }, host)).toBe(HOST_KEY);
    for (const base of [
      'https://attacker.example/v1',
      'https://api.openai.com.attacker.example/v1',
      'https://api.openai.com@attacker.example/v1',
      'http://api.openai.com/v1', // another scheme is another origin
      'https://api.openai.com:8443/v1',
      '//attacker.example/v1',
      '/proxy/v1',
    ]) {
      expect({ base, key: keyFor({ provider: 'openai', api_base: base }, host) }).toEqual({ base, key: undefined });
      expect({ base, key: keyFor({ base_url: base }, host) }).toEqual({ base, key: undefined });
      expect({ base, key: keyFor({ provider: 'openai' }, host, { ...call, api_base: base }) }).toEqual({
        base,
        key: undefined,
      });
    }
  });

  it('the agent keeps its own key for its own endpoint', () => {
    expect(keyFor({ api_base: 'https://agent.example/v1', api_key: 'agent-own-key' }, { api_key: HOST_KEY })).toBe(
      'agent-own-key',
    );
    expect(
      keyFor({ api_base: 'https://agent.example/v1' }, { api_key: HOST_KEY }, { ...call, api_key: 'call-key' }),
    ).toBe('call-key');
  });

  it('with a host URL or provider, the key goes to that origin only', () => {
    expect(
      keyFor({ api_base: 'https://attacker.example/v1' }, { api_base: 'http://127.0.0.1:9999/v1', api_key: HOST_KEY }),
    ).toBe(HOST_KEY);
    expect(
      resolveLlmCall({ api_base: 'https://attacker.example/v1' }, call, {
        api_base: 'http://127.0.0.1:9999/v1',
        api_key: HOST_KEY,
      }).connection.api_base,
    ).toBe('http://127.0.0.1:9999/v1');
    expect(keyFor({}, { provider: 'lmstudio', api_key: HOST_KEY })).toBe(HOST_KEY);
    expect(keyFor({ provider: 'scripted', scripted: ['x'] }, { api_key: HOST_KEY })).toBeUndefined();
  });
});
