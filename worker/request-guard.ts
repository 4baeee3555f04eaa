/**
 * What a web page must not be able to do to the API: the checks every request passes before any
 * route runs.
 *
 * - **Host** (loopback servers only): a page on `attacker.example` whose name is rebound to
 *   127.0.0.1 reaches a local server with `Host: attacker.example:8787`; only `localhost`,
 *   `127.0.0.1` and `[::1]` with the server's port are accepted there (403 FORBIDDEN).
 * - **Origin**: a request a browser sends from a page carries `Origin`; it must be the app's own
 *   origin or one of the allowed origins (403 FORBIDDEN). A request the browser marks cross-site
 *   (`Sec-Fetch-Site`) with no `Origin` (an `<img>`, a link) is refused the same way. Clients that
 *   are not browsers (curl, SDKs) send neither header and are not affected.
 * - **Content type** (read-json-body.ts): a POST body must be `application/json` (415), which a
 *   page cannot send cross-origin without a CORS preflight the allow-list answers.
 */
import type { MiddlewareHandler } from 'hono';
import { errorResponse } from './error-status.js';
import { quoteText } from '../src/util/cut-text.js';

/** The host names a loopback server answers to. */
const LOOPBACK_NAMES: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];

/** True for an interface name that only the local machine can reach. */
export function isLoopbackHostname(hostname: string): boolean {
  const name = hostname.trim().toLowerCase();
  return name === 'localhost' || name === '::1' || name === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(name);
}

/** The `Host` values a loopback server on `port` accepts. */
export function loopbackHosts(port: number): string[] {
  return LOOPBACK_NAMES.flatMap((name) => (port === 80 ? [name, `${name}:80`] : [`${name}:${port}`]));
}

/**
 * Refuses a request whose `Host` (and URL host) is not one of `hosts()`, compared without case.
 * `hosts` is read per request, so a server can fill in its port once it listens.
 */
export function hostGuard(hosts: () => readonly string[]): MiddlewareHandler {
  return async (c, next) => {
    const allowed = hosts().map((host) => host.toLowerCase());
    const header = c.req.header('host');
    const urlHost = new URL(c.req.url).host.toLowerCase();
    if ((header !== undefined && !allowed.includes(header.trim().toLowerCase())) || !allowed.includes(urlHost)) {
      return errorResponse(
        'FORBIDDEN',
        `this server only answers to ${allowed.join(', ')}; Host ${quoteText(header ?? urlHost, 100)} is refused (DNS rebinding)`,
      );
    }
    await next();
    return undefined;
  };
}

/**
 * Refuses requests from pages of other origins: `Origin` must be the app's own origin or in
 * `origins` (`*` allows any); a cross-site request without `Origin` is refused.
 */
export function originGuard(origins: readonly string[] | '*'): MiddlewareHandler {
  return async (c, next) => {
    if (origins !== '*') {
      const origin = c.req.header('origin');
      const own = new URL(c.req.url).origin;
      if (origin !== undefined) {
        if (origin !== own && !origins.includes(origin)) {
          return errorResponse(
            'FORBIDDEN',
            `requests from origin ${quoteText(origin, 200)} are not allowed (configure CORS_ORIGINS / TEA_CORS_ORIGINS)`,
          );
        }
      } else {
        const site = c.req.header('sec-fetch-site');
        if (site === 'cross-site' || site === 'same-site') {
          return errorResponse('FORBIDDEN', 'a cross-site request without an Origin header is not allowed');
        }
      }
    }
    await next();
    return undefined;
  };
}
