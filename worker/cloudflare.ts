/**
 * The Cloudflare Workers entry (bundled to dist/worker/cloudflare.js by build/targets/30-worker.mjs).
 * Bindings become app options here and nowhere else:
 *   TRACES            KV namespace for traces and checkpoints (required)
 *   LLM_BASE_URL, LLM_MODEL (vars), LLM_API_KEY (secret)   override every model endpoint
 *   API_TOKENS (secret)   `token:role,...` or JSON; when set, every route but /health needs a token
 *   CORS_ORIGINS, MAX_BODY_BYTES, TRACE_TTL_SECONDS (vars)
 * Agents are the files bundled at build time. One app per `env` object is kept for the isolate's
 * life: it holds configuration and the in-isolate resume lock, never a run's data.
 */
import agentFiles from 'virtual:tea-agents';
import { createKvStores, type KVNamespaceLike } from '../adapters/workers-kv/index.js';
import { AgentError } from '../src/errors/agent-error.js';
import { createApp } from './app.js';
import { prebuiltAgentSource } from './bundled-agents.js';
import { toErrorResponse } from './error-status.js';
import { optionsFromVariables, type HostVariables } from './host-config.js';

export interface CloudflareEnv extends HostVariables {
  TRACES: KVNamespaceLike;
  /** Seconds traces and checkpoints live in KV (at least 60); unset keeps them until deleted. */
  TRACE_TTL_SECONDS?: string;
}

/** The execution context Workers pass to `fetch` (only what the app uses). */
export interface CloudflareContext {
  waitUntil(promise: Promise<unknown>): void;
  passThroughOnException?(): void;
}

/** Creates the app for one environment. */
export function createCloudflareApp(env: CloudflareEnv) {
  if (env.TRACES === undefined) throw new AgentError('STORAGE_ERROR', 'the TRACES KV namespace binding is missing (see wrangler.toml)');
  const ttl = env.TRACE_TTL_SECONDS === undefined ? undefined : Number(env.TRACE_TTL_SECONDS);
  const stores = createKvStores(env.TRACES, ttl === undefined ? {} : { expirationTtl: ttl });
  return createApp({ agents: prebuiltAgentSource(agentFiles), ...stores, ...optionsFromVariables(env) });
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
      const { status, body } = toErrorResponse(error);
      return Response.json(body, { status });
    }
  },
};
