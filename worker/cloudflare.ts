/**
 * The Cloudflare Workers entry (bundled to dist/worker/cloudflare.js by build/targets/30-worker.mjs).
 * Bindings become app options here and nowhere else:
 *   TRACES            KV namespace for traces and checkpoints (required)
 *   LLM_BASE_URL, LLM_MODEL (vars), LLM_API_KEY (secret)   override every model endpoint
 *   API_TOKENS (secret)   `token:role,...` or JSON; when set, every route but /health needs a token
 *   CORS_ORIGINS, MAX_BODY_BYTES, TRACE_TTL_SECONDS, SSE_HEARTBEAT_MS (vars)
 *   MAX_RUNS, MAX_RUN_AGE_DAYS (vars)   retention applied by the cron trigger (`scheduled`)
 *   RUNS              Durable Object namespace of `RunCoordinator` (optional): when bound, every
 *                     run executes in its own object with SQLite storage, background runs and
 *                     resumable streams work, and KV is only the listing index
 *                     (worker/run-coordinator.ts, worker/durable-routes.ts); unbound, runs live in
 *                     their request and KV holds everything, as before.
 * Agents are the files bundled at build time. One app per `env` object is kept for the isolate's
 * life: it holds configuration and the in-isolate resume lock, never a run's data.
 */
import agentFiles from 'virtual:tea-agents';
import { createKvStores, type KVNamespaceLike } from '../adapters/workers-kv/index.js';
import { AgentError } from '../src/errors/agent-error.js';
import { createApp } from './app.js';
import { prebuiltAgentSource } from './prebuilt-agent-source.js';
// Lua, plus Prolog only when a bundled agent uses it (build/targets/30-worker.mjs decides).
import ALL_SCRIPT_SANDBOXES from 'virtual:tea-scripts';
import { errorResponse, toErrorResponse } from './error-status.js';
import { optionsFromVariables, type HostVariables } from './host-config.js';
import { durableRoutes, durableTraceStore, type DurableObjectNamespaceLike } from './durable-routes.js';
import { RunCoordinatorBase, type DurableObjectStateLike } from './run-coordinator.js';

export interface CloudflareEnv extends HostVariables {
  TRACES: KVNamespaceLike;
  /** Seconds traces and checkpoints live in KV (at least 60); unset keeps them until deleted. */
  TRACE_TTL_SECONDS?: string;
  /** Retention applied on each cron trigger: keep at most this many runs, none older than this. */
  MAX_RUNS?: string;
  MAX_RUN_AGE_DAYS?: string;
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
  if (env.TRACES === undefined) throw new AgentError('STORAGE_ERROR', 'the TRACES KV namespace binding is missing (see wrangler.toml)');
  const ttl = env.TRACE_TTL_SECONDS === undefined ? undefined : Number(env.TRACE_TTL_SECONDS);
  return createKvStores(env.TRACES, ttl === undefined ? {} : { expirationTtl: ttl });
}

/** The agents bundled at build time, with every script sandbox. */
function servedAgents() {
  return prebuiltAgentSource(agentFiles, ALL_SCRIPT_SANDBOXES);
}

/** Creates the app for one environment. */
export function createCloudflareApp(env: CloudflareEnv) {
  const agents = servedAgents();
  const stores = storesFor(env);
  if (env.RUNS === undefined) return createApp({ agents, ...stores, ...optionsFromVariables(env) });
  return createApp({
    agents,
    traceStore: durableTraceStore(env.RUNS, stores.traceStore),
    checkpointStore: stores.checkpointStore,
    ...optionsFromVariables(env),
    routes: durableRoutes(env.RUNS),
  });
}

/** The Durable Object class bound as RUNS: one per run, SQLite storage (wrangler.toml migration). */
export class RunCoordinator extends RunCoordinatorBase {
  constructor(ctx: DurableObjectStateLike, env: CloudflareEnv) {
    const ttl = env.TRACE_TTL_SECONDS === undefined ? undefined : Number(env.TRACE_TTL_SECONDS);
    const watchdog = Number(env.RUN_WATCHDOG_MS);
    super(ctx, {
      ...(Number.isInteger(watchdog) && watchdog > 0 ? { watchdogMs: watchdog } : {}),
      agents: servedAgents(),
      variables: env,
      ...(env.TRACES !== undefined ? { index: storesFor(env).traceStore } : {}),
      ...(ttl !== undefined && ttl > 0 ? { retentionMs: ttl * 1000 } : {}),
    });
  }
}

/** The retention policy of MAX_RUNS / MAX_RUN_AGE_DAYS, or undefined when neither is set. */
export function retentionOf(env: CloudflareEnv): { maxRuns?: number; maxAgeMs?: number } | undefined {
  const policy: { maxRuns?: number; maxAgeMs?: number } = {};
  const maxRuns = Number(env.MAX_RUNS);
  if (env.MAX_RUNS !== undefined && Number.isInteger(maxRuns) && maxRuns >= 0) policy.maxRuns = maxRuns;
  const days = Number(env.MAX_RUN_AGE_DAYS);
  if (env.MAX_RUN_AGE_DAYS !== undefined && days > 0) policy.maxAgeMs = days * 86_400_000;
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
      return errorResponse(body.error.code, body.error.message, body.error.details);
    }
  },

  /** The cron trigger (wrangler.toml `[triggers] crons`): applies the retention policy. */
  async scheduled(_controller: unknown, env: CloudflareEnv, context: CloudflareContext): Promise<void> {
    const policy = retentionOf(env);
    if (policy !== undefined) context.waitUntil(storesFor(env).traceStore.applyRetention(policy));
  },
};
