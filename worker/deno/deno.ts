/**
 * The Deno entry (Deno Deploy, or `deno run`): the same app over Deno KV. Bundled with the agents
 * to dist/worker/deno.js by build/targets/30-worker.mjs; run it with
 *   deno run --allow-net --allow-env --unstable-kv dist/worker/deno.js
 * Environment: PORT (default 8000), HOSTNAME (default 127.0.0.1, this machine only, with the
 * loopback Host check; another address needs API_TOKENS, or ALLOW_NO_AUTH=1 for an open API on
 * purpose: worker/open-api-guard.ts. On Deno Deploy, DENO_DEPLOYMENT_ID set, the deployment is
 * public whatever HOSTNAME says, so the same rule holds there), KV_PATH (a database file; unset:
 * Deno Deploy's KV, or Deno's default local database), TRACE_TTL_MS, RUN_LEASE_MS (how long a
 * run's lease lasts unrenewed: how soon another process continues the runs of one that died,
 * default 15000), RUN_POLL_MS (how often a follower looks at a run executing in another process,
 * default 250), RUN_SCAN (`0`: no lease scans, only the queue's watchdog messages continue the
 * runs of a process that died; for tests), and the variables of host-config.ts (API_TOKENS, ADMIN_ROLES, CORS_ORIGINS, LLM_BASE_URL,
 * LLM_MODEL, LLM_API_KEY, MAX_BODY_BYTES, SSE_HEARTBEAT_MS).
 * Runs are durable (worker/deno/deno-runs.ts): background runs through the Deno KV queue, resumable
 * event streams from Deno KV, and runs of a process that died continued by another (or by this
 * one restarted) from their last node checkpoint.
 * FILES_DIR: the folder file.read / file.write work in (give Deno --allow-read/--allow-write for
 * it); unset, they are refused. Deno's file store narrows a folder-swap race without closing it, so
 * FILES_DIR also needs ACCEPT_FILE_RACE=1 (the host accepts that; a warning is printed), else the
 * entry exits on start saying so (docs/security.md, "Deno's limits"). Agents run each other as sub-runs (agent.* with {file: …}).
 * On start it prints one line, `listening on http://host:port/`, to stdout.
 */
import agentFiles from 'virtual:tea-agents';
import { createDenoKvStores } from '../../adapters/deno-kv/index.js';
import { DenoRuns, type DenoKvQueueLike } from './deno-runs.js';
import { denoRunRoutes } from './deno-run-routes.js';
import { createApp } from '../app.js';
import { createDenoFileStore, type DenoFsLike } from '../../adapters/deno-fs/deno-file-store.js';
import type { FileStore } from '../../src/core/file-store.js';
import { prebuiltAgentFiles } from '../prebuilt-agent-files.js';
import { prebuiltAgentSource } from '../prebuilt-agent-source.js';
import scriptSandboxes from 'virtual:tea-script-sandboxes';
import { numberVariable, optionsFromVariables, type HostVariables } from '../host-config.js';
import { isLoopbackHostname, loopbackHosts } from '../request-guard.js';
import { checkOpenApi } from '../open-api-guard.js';
import { messageOf } from '../../src/util/message-of.js';

/** The slice of the `Deno` namespace this entry uses (typed here: the build has no Deno types). */
interface DenoLike {
  env: { get(name: string): string | undefined };
  openKv(path?: string): Promise<DenoKvQueueLike>;
  addSignalListener(signal: 'SIGTERM' | 'SIGINT', handler: () => void): void;
  exit(code: number): never;
  serve(
    options: { port: number; hostname: string; onListen?: (address: { hostname: string; port: number }) => void },
    handler: (request: Request) => Response | Promise<Response>,
  ): { finished: Promise<void> };
}

const deno = (globalThis as unknown as { Deno: DenoLike }).Deno;
const variable = (name: string) => deno.env.get(name);
const hostVariables: HostVariables = {};
for (const name of [
  'API_TOKENS',
  'ADMIN_ROLES',
  'CORS_ORIGINS',
  'LLM_BASE_URL',
  'LLM_MODEL',
  'LLM_API_KEY',
  'MAX_BODY_BYTES',
  'SSE_HEARTBEAT_MS',
  'AGENT_SECRETS',
] as const) {
  const value = variable(name);
  if (value !== undefined) hostVariables[name] = value;
}
const deployed = variable('DENO_DEPLOYMENT_ID') !== undefined;
const hostname = variable('HOSTNAME') || (deployed ? '0.0.0.0' : '127.0.0.1');
let listeningPort = numberVariable('PORT', variable('PORT'), { min: 0, max: 65_535 }) ?? 8000;
const hostOptions = optionsFromVariables(hostVariables, variable);
try {
  const warning = checkOpenApi({
    hostname,
    public: deployed,
    hasTokens: hostOptions.auth !== undefined,
    allowNoAuth: variable('ALLOW_NO_AUTH') === '1',
    tokensName: 'API_TOKENS',
    allowName: 'ALLOW_NO_AUTH=1',
  });
  if (warning !== undefined) console.error(warning);
} catch (error) {
  console.error(messageOf(error));
  deno.exit(2);
}
const kvPath = variable('KV_PATH');
const kv = await deno.openKv(kvPath === undefined || kvPath === '' ? undefined : kvPath);
const expireInMs = numberVariable('TRACE_TTL_MS', variable('TRACE_TTL_MS'), { min: 1 });
const stores = createDenoKvStores(kv, expireInMs === undefined ? {} : { expireInMs });
// Bound to loopback (local development), only loopback Host headers are answered (DNS rebinding).
const allowedHosts =
  !deployed && isLoopbackHostname(hostname) ? { allowedHosts: () => loopbackHosts(listeningPort) } : {};
const agents = prebuiltAgentSource(agentFiles, scriptSandboxes);
const filesDir = variable('FILES_DIR');
let files: { files?: FileStore } = {};
try {
  if (filesDir !== undefined && filesDir !== '')
    files = {
      files: createDenoFileStore(deno as unknown as DenoFsLike, filesDir, {
        acceptRace: variable('ACCEPT_FILE_RACE') === '1',
      }),
    };
} catch (error) {
  console.error(messageOf(error));
  deno.exit(2);
}
// The seams for foreground runs (the app) and background ones (the queue) alike.
const seams = { agentFiles: prebuiltAgentFiles(agentFiles, agents), ...files };
const positive = (name: string) => numberVariable(name, variable(name), { min: 1 });
const leaseMs = positive('RUN_LEASE_MS');
const pollMs = positive('RUN_POLL_MS');
const runs = new DenoRuns({
  kv,
  agents,
  ...stores,
  runOptions: {
    ...(hostOptions.llm !== undefined ? { llm: hostOptions.llm } : {}),
    ...(hostOptions.secrets !== undefined ? { secrets: hostOptions.secrets } : {}),
    ...seams,
  },
  ...(expireInMs !== undefined ? { expireInMs } : {}),
  ...(leaseMs !== undefined ? { leaseMs } : {}),
  ...(pollMs !== undefined ? { pollMs } : {}),
  scan: variable('RUN_SCAN') !== '0',
});
const app = createApp({ agents, ...seams, ...stores, ...hostOptions, ...allowedHosts, routes: denoRunRoutes(runs) });

// Background runs arrive through the queue; the sweep renews leases and continues the runs of
// processes that died. It runs once now (the start-up scan), then every `sweepMs`.
void kv.listenQueue((message) => runs.onQueueMessage(message));
const sweep = () => void runs.sweep().catch((error: unknown) => console.error(`run sweep: ${messageOf(error)}`));
sweep();
setInterval(sweep, runs.sweepMs);
// Stopping: the runs executing here are handed over (their leases marked abandoned) before exiting.
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  try {
    deno.addSignalListener(signal, () => void runs.handOver().finally(() => deno.exit(0)));
  } catch {
    // Not every platform has every signal (Windows has no SIGTERM listener); Deno Deploy has none.
  }
}

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
