/**
 * The Cloudflare Workers entry (bundled to dist/worker/cloudflare.js by build/targets/30-worker.mjs).
 * Bindings become app options here and nowhere else:
 *   TRACES            KV namespace for traces and checkpoints (required)
 *   LLM_BASE_URL, LLM_MODEL (vars), LLM_API_KEY (secret)   override every model endpoint
 *   API_TOKENS (secret)   `token:role,...` or JSON; when set, every route but /health needs a token
 *   CORS_ORIGINS, MAX_BODY_BYTES, TRACE_TTL_SECONDS, SSE_HEARTBEAT_MS (vars)
 *   MAX_RUNS, MAX_RUN_AGE_DAYS (vars)   retention applied by the cron trigger (`scheduled`)
 *   FILES             R2 bucket (optional): the file root of file.read / file.write; unbound,
 *                     they are refused. Agents run each other as sub-runs (agent.* with {file: …}).
 *   RUNS              Durable Object namespace of `RunCoordinator` (optional): when bound, every
 *                     run executes in its own object with SQLite storage, background runs and
 *                     resumable streams work, and KV is only the listing index
 *                     (worker/cloudflare/run-coordinator.ts, worker/cloudflare/durable-routes.ts); unbound, runs live in
 *                     their request and KV holds everything, as before.
 * Agents are the files bundled at build time, and so are the script sandboxes their code uses and
 * no others (no Lua VM when no agent has Lua). One app per `env` object is kept for the isolate's
 * life: it holds configuration and the in-isolate resume lock, never a run's data.
 */
import agentFiles from 'virtual:tea-agents';
import { createKvStores, type KVNamespaceLike } from '../../adapters/workers-kv/index.js';
import { AgentError } from '../../src/core/agent-error.js';
import { createApp } from '../app.js';
import { createR2FileStore, type R2BucketLike } from '../../adapters/r2/r2-file-store.js';
import { prebuiltAgentFiles } from '../prebuilt-agent-files.js';
import { prebuiltAgentSource } from '../prebuilt-agent-source.js';
import scriptSandboxes from 'virtual:tea-script-sandboxes';
import { errorJsonResponse, toErrorResponse } from '../error-status.js';
import { numberVariable, optionsFromVariables, type HostVariables } from '../host-config.js';
import { durableRoutes, durableTraceStore, type DurableObjectNamespaceLike } from './durable-routes.js';
import { RunCoordinatorBase, type DurableObjectStateLike } from './run-coordinator.js';

export interface CloudflareEnv extends HostVariables {
  TRACES: KVNamespaceLike;
  /** Seconds traces and checkpoints live in KV (at least 60); unset keeps them until deleted. */
  TRACE_TTL_SECONDS?: string;
  /** Retention applied on each cron trigger: keep at most this many runs, none older than this. */
  MAX_RUNS?: string;
  MAX_RUN_AGE_DAYS?: string;
  /** The file root of file.read / file.write (wrangler.toml `r2_buckets`); optional. */
  FILES?: R2BucketLike;
  /** The run coordinators (wrangler.toml `durable_objects`); optional. */
  RUNS?: DurableObjectNamespaceLike;
  /** Milliseconds between a running run's watchdog alarms (default 30000). */
  RUN_WATCHDOG_MS?: string;
}

/** The execution context Workers pass to `fetch` (only what the app uses). */
export interface CloudflareContext {
  waitUntil(promise: Promise<unknown>): void;
  passThroughOnException?(): void;
}

/** The KV stores of one environment. */
function storesFor(env: CloudflareEnv) {
  if (env.TRACES === undefined)
    throw new AgentError('STORAGE_ERROR', 'the TRACES KV namespace binding is missing (see wrangler.toml)');
  // Workers KV refuses an expiration under 60 seconds.
  const ttl = numberVariable('TRACE_TTL_SECONDS', env.TRACE_TTL_SECONDS, { min: 60 });
  return createKvStores(env.TRACES, ttl === undefined ? {} : { expirationTtl: ttl });
}

let served: ReturnType<typeof prebuiltAgentSource> | undefined;

/**
 * The agents bundled at build time, with the script sandboxes they use (the build bundles only
 * those: build/script-sandbox-modules.mjs): compiled once per isolate and
 * shared by the app and every run coordinator in it (a coordinator is built for each run; compiling
 * every agent for each one made the Durable Object path several times slower than the KV path).
 */
function servedAgents() {
  served ??= prebuiltAgentSource(agentFiles, scriptSandboxes);
  return served;
}

/** Agent files (the bundled agents) and the file root (the FILES bucket, when bound) of a run. */
function seamsFor(env: CloudflareEnv, agents: ReturnType<typeof servedAgents>) {
  return {
    agentFiles: prebuiltAgentFiles(agentFiles, agents),
    ...(env.FILES !== undefined ? { files: createR2FileStore(env.FILES) } : {}),
  };
}

/** Creates the app for one environment. */
export function createCloudflareApp(env: CloudflareEnv) {
  const agents = servedAgents();
  const stores = storesFor(env);
  const seams = seamsFor(env, agents);
  if (env.RUNS === undefined) return createApp({ agents, ...stores, ...seams, ...optionsFromVariables(env) });
  return createApp({
    agents,
    ...seams,
    traceStore: durableTraceStore(env.RUNS, stores.traceStore),
    checkpointStore: stores.checkpointStore,
    ...optionsFromVariables(env),
    routes: durableRoutes(env.RUNS),
  });
}

/** The Durable Object class bound as RUNS: one per run, SQLite storage (wrangler.toml migration). */
export class RunCoordinator extends RunCoordinatorBase {
  constructor(ctx: DurableObjectStateLike, env: CloudflareEnv) {
    const ttl = numberVariable('TRACE_TTL_SECONDS', env.TRACE_TTL_SECONDS, { min: 60 });
    const watchdog = numberVariable('RUN_WATCHDOG_MS', env.RUN_WATCHDOG_MS, { min: 1 });
    const agents = servedAgents();
    const writes = { rows: 0, kv_puts: 0 };
    super(ctx, {
      ...(watchdog !== undefined ? { watchdogMs: watchdog } : {}),
      agents,
      seams: seamsFor(env, agents),
      variables: env,
      writes,
      ...(env.TRACES !== undefined
        ? { index: storesFor({ ...env, TRACES: countingPuts(env.TRACES, writes) }).traceStore }
        : {}),
      ...(ttl !== undefined ? { retentionMs: ttl * 1000 } : {}),
    });
  }
}

/** The KV binding, counting its puts (the run coordinator's GET /stats, for the benchmarks). */
function countingPuts(kv: KVNamespaceLike, writes: { kv_puts: number }): KVNamespaceLike {
  return {
    get: (key) => kv.get(key),
    put: (key, value, options) => {
      writes.kv_puts++;
      return kv.put(key, value, options);
    },
    delete: (key) => kv.delete(key),
    list: (options) => kv.list(options),
  };
}

/** The retention policy of MAX_RUNS / MAX_RUN_AGE_DAYS, or undefined when neither is set. */
export function retentionOf(env: CloudflareEnv): { maxRuns?: number; maxAgeMs?: number } | undefined {
  const policy: { maxRuns?: number; maxAgeMs?: number } = {};
  const maxRuns = numberVariable('MAX_RUNS', env.MAX_RUNS, { min: 0 });
  if (maxRuns !== undefined) policy.maxRuns = maxRuns;
  const days = numberVariable('MAX_RUN_AGE_DAYS', env.MAX_RUN_AGE_DAYS, { min: 0.01, integer: false });
  if (days !== undefined) policy.maxAgeMs = days * 86_400_000;
  return Object.keys(policy).length > 0 ? policy : undefined;
}

const apps = new WeakMap<object, ReturnType<typeof createCloudflareApp>>();

export default {
  async fetch(request: Request, env: CloudflareEnv, context: CloudflareContext): Promise<Response> {
    try {
      let app = apps.get(env);
      if (app === undefined) {
        app = createCloudflareApp(env);
        apps.set(env, app);
      }
      return await app.fetch(request, env, context as never);
    } catch (error) {
      const { body } = toErrorResponse(error);
      return errorJsonResponse(body.error);
    }
  },

  /** The cron trigger (wrangler.toml `[triggers] crons`): applies the retention policy. */
  async scheduled(_controller: unknown, env: CloudflareEnv, context: CloudflareContext): Promise<void> {
    const policy = retentionOf(env);
    if (policy !== undefined) context.waitUntil(storesFor(env).traceStore.applyRetention(policy));
  },
};
