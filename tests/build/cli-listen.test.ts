/**
 * `tea-edge serve` listens on loopback unless told otherwise, and an address other machines reach
 * needs TEA_API_TOKENS, or --allow-no-auth for an open API on purpose (then it says so).
 */
import { describe, expect, it } from 'vitest';
import { runCli, startServe } from '../support/run-cli.js';

const NO_TOKENS = { TEA_API_TOKENS: '' };

describe('tea-edge serve: where it listens', () => {
  it('listens on 127.0.0.1 by default', async () => {
    const server = await startServe(['--port', '0'], NO_TOKENS);
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    } finally {
      server.child.kill('SIGTERM');
      await server.outcome;
    }
  });

  it('refuses 0.0.0.0 with no TEA_API_TOKENS, exit 2, saying what to do', async () => {
    const result = await runCli(['serve', '--host', '0.0.0.0', '--port', '0'], NO_TOKENS);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^tea-edge serve: refusing to serve the API on 0\.0\.0\.0.*Set TEA_API_TOKENS, listen on 127\.0\.0\.1, or allow an open API with --allow-no-auth\n$/,
    );
  });

  it('serves 0.0.0.0 with --allow-no-auth, with a warning first', async () => {
    const server = await startServe(['--host', '0.0.0.0', '--port', '0', '--allow-no-auth'], NO_TOKENS);
    server.child.kill('SIGTERM');
    const { stderr } = await server.outcome;
    expect(stderr).toMatch(
      /^tea-edge serve: warning: serving the API on 0\.0\.0\.0.*\(--allow-no-auth\)\ntea-edge serving on http:\/\/0\.0\.0\.0:\d+ /,
    );
  });

  it('serves 0.0.0.0 with tokens, without a warning', async () => {
    const server = await startServe(['--host', '0.0.0.0', '--port', '0'], { TEA_API_TOKENS: 'secret-token:admin' });
    server.child.kill('SIGTERM');
    const { stderr } = await server.outcome;
    expect(stderr).not.toContain('warning');
    expect(stderr).toMatch(/^tea-edge serving on http:\/\/0\.0\.0\.0:\d+ /);
  });
});
