import { describe, expect, it } from 'vitest';
import { checkOpenApi } from './open-api-guard.js';

const node = { tokensName: 'TEA_API_TOKENS', allowName: '--allow-no-auth' };

describe('checkOpenApi', () => {
  it('starts on a loopback interface without tokens', () => {
    for (const hostname of ['127.0.0.1', 'localhost', '::1', '127.0.0.5'])
      expect(checkOpenApi({ hostname, hasTokens: false, allowNoAuth: false, ...node })).toBeUndefined();
  });

  it('refuses another interface with no tokens, naming the tokens, loopback and the permission', () => {
    for (const hostname of ['0.0.0.0', '::', '192.168.1.20', 'example.org']) {
      let caught: unknown;
      try {
        checkOpenApi({ hostname, hasTokens: false, allowNoAuth: false, ...node });
      } catch (error) {
        caught = error;
      }
      expect(caught, hostname).toMatchObject({ code: 'HOST_CONFIG', location: { field: 'TEA_API_TOKENS' } });
      expect((caught as Error).message).toContain(`refusing to serve the API on ${hostname}`);
      expect((caught as Error).message).toMatch(
        /Set TEA_API_TOKENS, listen on 127\.0\.0\.1, or allow an open API with --allow-no-auth/,
      );
    }
  });

  it('starts beyond loopback with tokens, or with the permission and a warning', () => {
    expect(checkOpenApi({ hostname: '0.0.0.0', hasTokens: true, allowNoAuth: false, ...node })).toBeUndefined();
    expect(checkOpenApi({ hostname: '0.0.0.0', hasTokens: false, allowNoAuth: true, ...node })).toMatch(
      /^warning: serving the API on 0\.0\.0\.0.* with no TEA_API_TOKENS.*\(--allow-no-auth\)$/,
    );
  });

  it('takes a public deployment as reachable whatever it listens on', () => {
    const deno = { tokensName: 'API_TOKENS', allowName: 'ALLOW_NO_AUTH=1' };
    expect(() =>
      checkOpenApi({ hostname: '127.0.0.1', public: true, hasTokens: false, allowNoAuth: false, ...deno }),
    ).toThrow(/on a public deployment with no API_TOKENS/);
    expect(
      checkOpenApi({ hostname: '127.0.0.1', public: true, hasTokens: true, allowNoAuth: false, ...deno }),
    ).toBeUndefined();
  });
});
