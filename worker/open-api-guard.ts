/**
 * Loopback unless the host says otherwise: a server listening beyond the local machine with no API
 * tokens would let anyone who reaches it run agents and spend the model budget. That start is
 * refused (HOST_CONFIG) unless the host allows an open API explicitly (`tea-edge serve
 * --allow-no-auth`, `ALLOW_NO_AUTH=1` on Deno); then it is still said once, as a warning.
 */
import { AgentError } from '../src/core/agent-error.js';
import { isLoopbackHostname } from './request-guard.js';

export interface OpenApiCheck {
  /** The interface the server listens on (a Deno Deploy deployment is public whatever it names). */
  hostname: string;
  /** True when the server is reachable from beyond this machine whatever `hostname` says. */
  public?: boolean;
  /** True when requests need a bearer token. */
  hasTokens: boolean;
  /** True when the host allowed an open API explicitly. */
  allowNoAuth: boolean;
  /** How this host names its tokens and its permission, for the message: `TEA_API_TOKENS`, `--allow-no-auth`. */
  tokensName: string;
  allowName: string;
}

/** Undefined when the server is safe to start as it is; a warning line when it is open by permission; throws HOST_CONFIG when it would be open unasked. */
export function checkOpenApi(check: OpenApiCheck): string | undefined {
  const where =
    check.public === true ? 'a public deployment' : `${check.hostname}, which is reachable from other machines`;
  if (check.hasTokens || (check.public !== true && isLoopbackHostname(check.hostname))) return undefined;
  if (check.allowNoAuth)
    return `warning: serving the API on ${where} with no ${check.tokensName}: anyone who reaches it can run agents (${check.allowName})`;
  throw new AgentError(
    'HOST_CONFIG',
    `refusing to serve the API on ${where} with no ${check.tokensName}: anyone who reaches it could run agents and spend the model budget. Set ${check.tokensName}, listen on 127.0.0.1, or allow an open API with ${check.allowName}`,
    { field: check.tokensName },
  );
}
