/**
 * The Node host: the same app with @hono/node-server and the file-directory stores, plus the web
 * demo's static files (dist/web-demo/) at `/` when they have been built. `tea-edge serve` and
 * `npm start` run it.
 *
 * @example
 * const server = await serve({ port: 8787, agentsDir: 'examples', traceDir: '.tea-traces' });
 * console.log(server.url); await server.close();
 */
import { withShellProviders, type ShellCommand } from '../../cli/shell-model.js';
import { serve as serveNode } from '@hono/node-server';
import { serveStatic } from '@hono/node-server/serve-static';
import { existsSync, readdirSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createFsStores } from '../../adapters/fs/index.js';
import { createRootedFileStore } from '../../adapters/fs/rooted-file-store.js';
import { fileStoreAgentSource } from '../../src/graph/agent-files.js';
import { Hono } from 'hono';
import { createApp, type AppOptions } from '../app.js';
import { loadAgent } from '../../src/load-agent-with-scripts.js';
import { ALL_SCRIPT_SANDBOXES } from '../../src/lua/lua-script-sandbox.js';
import { withPrologWhenUsed } from '../../src/prolog/load-prolog.js';
import { lazyAgentSource } from '../prebuilt-agent-source.js';
import type { AgentSummary } from '../agent-source.js';
import { agentSecrets, numberVariable, optionsFromVariables } from '../host-config.js';
import { localRunRoutes } from './local-runs.js';
import { DEFAULT_LEASE_MS, DurableRunFiles } from './durable-fs.js';
import { DEFAULT_RUN_QUEUE, defaultMaxConcurrentRuns, RunSlots } from '../run-slots.js';
import type { RetentionPolicy } from '../../src/core/trace-store.js';
import { hostGuard, isLoopbackHostname, loopbackHosts } from '../request-guard.js';
import { checkOpenApi } from '../open-api-guard.js';
import { hostYield } from '../../src/graph/host-yield.js';

export interface ServeOptions {
  /** Port (0 picks a free one; default 8787). */
  port?: number;
  /** Interface to listen on (default 127.0.0.1). */
  hostname?: string;
  /** Directory of agent files (*.yaml, *.yml), compiled at start (default `examples`). */
  agentsDir?: string;
  /** Directory for traces and checkpoints (default `.tea-traces`). */
  traceDir?: string;
  /** The folder file.read / file.write work in (`serve --files`); unset: they are refused. */
  filesDir?: string;
  /** `serve --accept-file-race`: where only the racy file walk exists (no /proc/self/fd), use it for --files and the agents folder rather than refuse (docs/security.md). */
  acceptFileRace?: boolean;
  /** Static files served at `/` (default: dist/web-demo of this package, when present). */
  webDemoDir?: string;
  /**
   * Milliseconds after which a run whose process stopped touching its lease is continued by another
   * server on the same trace directory (default 10000, or TEA_RUN_LEASE_MS). A server on the same
   * machine continues the runs of a process that is gone at once.
   */
  leaseMs?: number;
  /**
   * Runs executed at once (default 4 per processor, or TEA_MAX_CONCURRENT_RUNS); a start or resume
   * beyond it waits in a line (TEA_RUN_QUEUE), and beyond that is refused 503 OVERLOADED with
   * Retry-After (worker/run-slots.ts).
   */
  maxConcurrentRuns?: number;
  /** Starts and resumes that may wait for a slot (default 256, or TEA_RUN_QUEUE). */
  runQueue?: number;
  /**
   * The history kept in the trace directory: at most `maxRuns` runs (default 10000, or
   * TEA_RETAIN_RUNS) and none older than `maxAgeMs` (default 30 days, or TEA_RETAIN_DAYS); applied
   * at start and every 10 minutes; a running run is never removed. `false`: keep everything.
   */
  retention?: RetentionPolicy | false;
  /** Extra app options (auth, cors, limits, llm); environment variables as in host-config.ts fill the rest. */
  app?: Partial<AppOptions>;
  /**
   * The commands that answer TEA's `provider: shell` (`serve --shell-provider NAME=COMMAND`,
   * cli/shell-model.ts). Named by the host only: an agent's `settings.shell_providers` is never
   * run, and without commands an agent using `provider: shell` fails to load.
   */
  shellProviders?: readonly ShellCommand[];
  /**
   * Serve with no API tokens on an interface other machines reach (`serve --allow-no-auth`).
   * Without it, such a start is refused with HOST_CONFIG (worker/open-api-guard.ts).
   */
  allowNoAuth?: boolean;
}

export interface RunningServer {
  url: string;
  /** Set when the API is open beyond this machine by permission (allowNoAuth): say it to the operator. */
  warning?: string;
  port: number;
  app: Hono;
  /** The agent files that do not load: listed by GET /agents with their problems, not served. */
  invalidAgents: Array<Extract<AgentSummary, { status: 'invalid' }>>;
  close(): Promise<void>;
}

/**
 * Reads the agent files of a directory (a missing directory is an empty list). Each is named by
 * its path in that folder: load errors and the agent listing never show the host's own paths.
 */
async function readAgentFiles(directory: string): Promise<Array<{ file: string; source: string }>> {
  if (!existsSync(directory)) return [];
  const names = (await readdir(directory)).filter((name) => /\.ya?ml$/.test(name)).sort();
  return Promise.all(
    names.map(async (name) => ({ file: name, source: await readFile(path.join(directory, name), 'utf8') })),
  );
}

/** The web demo next to this module: <package>/dist/web-demo (this file is bundled into dist/). */
function defaultWebDemoDir(): string | undefined {
  const here = path.dirname(fileURLToPath(import.meta.url));
  for (const candidate of [
    path.join(here, 'web-demo'),
    path.join(here, '../dist/web-demo'),
    path.join(here, '../../dist/web-demo'),
  ]) {
    if (existsSync(path.join(candidate, 'index.html'))) return candidate;
  }
  return undefined;
}

/**
 * Starts the server; resolves once it listens. Agent files that fail to load do not stop it: they
 * are in `invalidAgents` and listed by GET /agents as `status: 'invalid'` with their problems, and
 * a request naming one answers 422 INVALID_AGENT. On a loopback interface (the
 * default), only loopback `Host` headers with the server's port are answered, static files
 * included: a DNS-rebinding page cannot reach it.
 */
export async function serve(options: ServeOptions = {}): Promise<RunningServer> {
  const files = await readAgentFiles(path.resolve(options.agentsDir ?? 'examples'));
  // Prolog (its own chunk) is loaded only when one of the served agents uses it.
  const scripts = await withPrologWhenUsed(
    ALL_SCRIPT_SANDBOXES,
    files.map(({ source }) => source),
  );
  const shell = options.shellProviders ?? [];
  const hostProviders = shell.length > 0 ? ['shell'] : [];
  // Agents that do not load are listed with their problems (GET /agents) and refused by name (422),
  // not a reason to refuse to start: the valid ones are served.
  const agents = lazyAgentSource(
    () =>
      files.map(({ file, source }) => ({
        file,
        source,
        compile: () => loadAgent(source, { file, scripts, hostProviders }),
      })),
    { invalid: 'list' },
  );
  const invalidAgents = (await agents.list()).filter(
    (agent): agent is Extract<AgentSummary, { status: 'invalid' }> => agent.status === 'invalid',
  ); // compile now, not on a request
  const environment = process.env;
  const traceDir = path.resolve(options.traceDir ?? '.tea-traces');
  const stores = createFsStores(traceDir);
  const leaseMs =
    options.leaseMs ?? numberVariable('TEA_RUN_LEASE_MS', environment.TEA_RUN_LEASE_MS, { min: 1 }) ?? DEFAULT_LEASE_MS;
  // Runs survive this process: leases, live logs, node checkpoints (worker/node/durable-fs.ts).
  const durable = new DurableRunFiles(traceDir, stores.traceStore, leaseMs);
  const hostname = options.hostname ?? '127.0.0.1';
  const hostOptions = optionsFromVariables({
    ...(environment.TEA_API_TOKENS !== undefined ? { API_TOKENS: environment.TEA_API_TOKENS } : {}),
    ...(environment.TEA_ADMIN_ROLES !== undefined ? { ADMIN_ROLES: environment.TEA_ADMIN_ROLES } : {}),
    ...(environment.TEA_CORS_ORIGINS !== undefined ? { CORS_ORIGINS: environment.TEA_CORS_ORIGINS } : {}),
    ...(environment.TEA_LLM_BASE_URL !== undefined ? { LLM_BASE_URL: environment.TEA_LLM_BASE_URL } : {}),
    ...(environment.TEA_LLM_MODEL !== undefined ? { LLM_MODEL: environment.TEA_LLM_MODEL } : {}),
    ...(environment.TEA_LLM_API_KEY !== undefined ? { LLM_API_KEY: environment.TEA_LLM_API_KEY } : {}),
  });
  const warning = checkOpenApi({
    hostname,
    hasTokens: (options.app?.auth ?? hostOptions.auth) !== undefined,
    allowNoAuth: options.allowNoAuth === true,
    tokensName: 'TEA_API_TOKENS',
    allowName: '--allow-no-auth',
  });
  const maxRuns =
    options.maxConcurrentRuns ??
    numberVariable('TEA_MAX_CONCURRENT_RUNS', environment.TEA_MAX_CONCURRENT_RUNS, { min: 1 }) ??
    defaultMaxConcurrentRuns(availableParallelism());
  const retention =
    options.retention === false ? undefined : (options.retention ?? retentionFromVariables(environment));
  const slots = new RunSlots(
    maxRuns,
    options.runQueue ?? numberVariable('TEA_RUN_QUEUE', environment.TEA_RUN_QUEUE, { min: 0 }) ?? DEFAULT_RUN_QUEUE,
  );
  const app = createApp({
    agents,
    ...stores,
    // Agents run the other agent files of the same folder as sub-runs (agent.* with {file: …}).
    agentFiles: fileStoreAgentSource(
      createRootedFileStore(path.resolve(options.agentsDir ?? 'examples'), {
        acceptRace: options.acceptFileRace === true,
      }),
    ),
    ...(options.filesDir !== undefined
      ? { files: createRootedFileStore(options.filesDir, { acceptRace: options.acceptFileRace === true }) }
      : {}),
    ...hostOptions,
    // Named by TEA_AGENT_SECRETS (comma-separated); each must be set (worker/host-config.ts AGENT_SECRETS).
    ...agentSecrets(environment.TEA_AGENT_SECRETS, (name) => environment[name], 'TEA_AGENT_SECRETS'),
    // Runs belong to the process: background runs, cancel, resumable streams, and runs of a process
    // that died continued from their node checkpoint (worker/node/local-runs.ts).
    routes: localRunRoutes(durable, slots, retention),
    // One budget of work between event-loop turns for all the runs of this process (host-yield.ts).
    breathe: hostYield(),
    ...options.app,
    ...(shell.length > 0
      ? {
          llm: {
            ...(options.app?.llm ?? hostOptions.llm),
            providerFactory: withShellProviders(shell, options.app?.llm?.providerFactory),
          },
        }
      : {}),
  });
  // The Host check first (for static files too), then static files (public, like the page
  // itself), then the API with its Origin check, auth and limits.
  const site = new Hono();
  let listeningPort = options.port ?? 8787;
  if (isLoopbackHostname(hostname))
    site.use(
      '*',
      hostGuard(() => loopbackHosts(listeningPort)),
    );
  const webDemoDir = options.webDemoDir ?? defaultWebDemoDir();
  if (webDemoDir !== undefined && existsSync(webDemoDir)) {
    // Only the paths the built demo has go to the disk: /health, /runs and every other API route
    // are answered without serveStatic's file lookup (a synchronous stat on the event loop).
    const demoPaths = new Set(
      readdirSync(webDemoDir, { recursive: true }).map((name) => `/${String(name).split(path.sep).join('/')}`),
    );
    const staticFiles = serveStatic({ root: path.relative(process.cwd(), webDemoDir) || '.' });
    site.get('/*', (c, next) => (c.req.path === '/' || demoPaths.has(c.req.path) ? staticFiles(c, next) : next()));
  }
  site.route('/', app);
  return new Promise((resolve, reject) => {
    const server = serveNode({ fetch: site.fetch, port: options.port ?? 8787, hostname }, (info: AddressInfo) => {
      listeningPort = info.port;
      resolve({
        url: `http://${hostname.includes(':') ? `[${hostname}]` : hostname}:${info.port}`,
        port: info.port,
        invalidAgents,
        ...(warning !== undefined ? { warning } : {}),
        app: site,
        close: () =>
          new Promise<void>((done) => {
            durable.close();
            server.close(() => done());
            (server as { closeAllConnections?: () => void }).closeAllConnections?.();
          }),
      });
    });
    server.once('error', reject);
  });
}

/** Runs kept by default (TEA_RETAIN_RUNS), and their age in days (TEA_RETAIN_DAYS). */
export const DEFAULT_RETAIN_RUNS = 10_000;
export const DEFAULT_RETAIN_DAYS = 30;

/** serve's retention policy from its environment (TEA_RETAIN_RUNS, TEA_RETAIN_DAYS; 0: no limit of that kind). */
function retentionFromVariables(environment: NodeJS.ProcessEnv): RetentionPolicy | undefined {
  const runs = numberVariable('TEA_RETAIN_RUNS', environment.TEA_RETAIN_RUNS, { min: 0 }) ?? DEFAULT_RETAIN_RUNS;
  const days =
    numberVariable('TEA_RETAIN_DAYS', environment.TEA_RETAIN_DAYS, { min: 0, integer: false }) ?? DEFAULT_RETAIN_DAYS;
  const policy: RetentionPolicy = {
    ...(runs > 0 ? { maxRuns: runs } : {}),
    ...(days > 0 ? { maxAgeMs: days * 86_400_000 } : {}),
  };
  return policy.maxRuns === undefined && policy.maxAgeMs === undefined ? undefined : policy;
}
