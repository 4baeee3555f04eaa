/**
 * The Deno entry (Deno Deploy, or `deno run`): the same app over Deno KV. Bundled with the agents
 * to dist/worker/deno.js by build/targets/30-worker.mjs; run it with
 *   deno run --allow-net --allow-env --unstable-kv dist/worker/deno.js
 * Environment: PORT (default 8000), HOSTNAME (default 0.0.0.0; a loopback name turns on the
 * loopback Host check), KV_PATH (a database file; unset:
 * Deno Deploy's KV, or Deno's default local database), TRACE_TTL_MS, and the variables of
 * host-config.ts (API_TOKENS, CORS_ORIGINS, LLM_BASE_URL, LLM_MODEL, LLM_API_KEY, MAX_BODY_BYTES).
 * On start it prints one line, `listening on http://host:port/`, to stdout.
 */
import agentFiles from 'virtual:tea-agents';
import { createDenoKvStores, type DenoKvLike } from '../adapters/deno-kv/index.js';
import { createApp } from './app.js';
import { prebuiltAgentSource } from './prebuilt-agent-source.js';
// Lua, plus Prolog only when a bundled agent uses it (build/targets/30-worker.mjs decides).
import ALL_SCRIPT_SANDBOXES from 'virtual:tea-scripts';
import { optionsFromVariables, type HostVariables } from './host-config.js';
import { isLoopbackHostname, loopbackHosts } from './request-guard.js';

/** The slice of the `Deno` namespace this entry uses (typed here: the build has no Deno types). */
interface DenoLike {
  env: { get(name: string): string | undefined };
  openKv(path?: string): Promise<DenoKvLike>;
  serve(
    options: { port: number; hostname: string; onListen?: (address: { hostname: string; port: number }) => void },
    handler: (request: Request) => Response | Promise<Response>,
  ): { finished: Promise<void> };
}

const deno = (globalThis as unknown as { Deno: DenoLike }).Deno;
const variable = (name: string) => deno.env.get(name);
const kvPath = variable('KV_PATH');
const kv = await deno.openKv(kvPath === undefined || kvPath === '' ? undefined : kvPath);
const ttl = variable('TRACE_TTL_MS');
const stores = createDenoKvStores(kv, ttl === undefined ? {} : { expireInMs: Number(ttl) });
const hostVariables: HostVariables = {};
for (const name of ['API_TOKENS', 'CORS_ORIGINS', 'LLM_BASE_URL', 'LLM_MODEL', 'LLM_API_KEY', 'MAX_BODY_BYTES', 'SSE_HEARTBEAT_MS'] as const) {
  const value = variable(name);
  if (value !== undefined) hostVariables[name] = value;
}
const hostname = variable('HOSTNAME') ?? '0.0.0.0';
let listeningPort = Number(variable('PORT') ?? 8000);
// Bound to loopback (local development), only loopback Host headers are answered (DNS rebinding).
const allowedHosts = isLoopbackHostname(hostname) ? { allowedHosts: () => loopbackHosts(listeningPort) } : {};
const app = createApp({ agents: prebuiltAgentSource(agentFiles, ALL_SCRIPT_SANDBOXES), ...stores, ...optionsFromVariables(hostVariables), ...allowedHosts });

deno.serve(
  {
    port: listeningPort,
    hostname,
    onListen: ({ hostname: address, port }) => {
      listeningPort = port;
      console.log(`listening on http://${address}:${port}/`);
    },
  },
  (request) => app.fetch(request),
);
