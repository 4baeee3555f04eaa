/**
 * The HTTP app (`tea-edge/worker`): one Hono app, identical on Cloudflare Workers, Deno and Node.
 * Routes (ARCHITECTURE.md "Contracts the outside sees"):
 *
 *   GET  /health                 {ok, version}                      (never needs a token)
 *   GET  /agents                 [{name, description, status}] (+ file, errors when status is 'invalid')
 *   GET  /agents/:name           {name, description, spec, source?}  (the studio draws its graph, shows its file)
 *   POST /agents/:name/runs      {input} → {run_id, status, stop_reason, state, error?, interrupt?}
 *                                or, with Accept: text/event-stream, the run's events as SSE
 *   POST /runs/:id/resume        {state_update?, approval?} → the same
 *   POST /runs/:id/fork          {node, state} → 201 {run_id}: a new interrupted run paused after
 *                                that node of run :id with that state (resume it to run from there)
 *   GET  /runs                   ?agent=&limit=&cursor= → {runs, cursor?}
 *   GET  /runs/:id               the run record
 *   GET  /runs/:id/events        the stored events, NDJSON
 *   GET  /runs/:id/review        the run reviewer's report
 *   POST /mcp                    the agents as MCP tools (Streamable HTTP; worker/mcp-route.ts)
 *
 * Request errors are `{error: {code, message}}` with the status from error-status.ts; unknown
 * routes are 404 and known routes with another method 405, in the same shape. A run that failed is
 * answered with its result and its error's status (error-status.ts). Before any route: the Host
 * check (loopback servers, `allowedHosts`), the Origin check (request-guard.ts), CORS, tokens,
 * the body limit (content-length, and counted bytes when it is absent); POST bodies must be
 * `application/json`. Every JSON body and SSE event leaving the app has the host's secrets (the
 * model key, `secrets`) redacted. The app keeps no state between requests except an in-isolate
 * set of runs being resumed (per app instance).
 *
 * @example
 * const app = createApp({ agents: { hello: loadAgent(yaml) }, ...createMemoryStores() });
 * export default app; // Workers and Deno.serve take `app.fetch`
 */
import { Hono } from 'hono/tiny';
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import { HTTPException } from 'hono/http-exception';
import { runAgent } from '../src/graph/run-agent.js';
import { resumeRun } from '../src/graph/resume-run.js';
import type { CompiledAgent } from '../src/graph/compiled-agent.js';
import type { ResumeInput, RunOptions } from '../src/graph/run-types.js';
import { reviewRun } from '../src/reflection/review/review-run.js';
import type { CheckpointStore, RunOwner, TraceStore } from '../src/core/trace-store.js';
import { toAgentSource, type AgentSource } from './agent-source.js';
import { forkRun } from './fork-run.js';
import { roleOf } from './role-of.js';
import { DEFAULT_ADMIN_ROLES, runAccessGuard } from './run-access.js';
import { errorJsonResponse, errorResponse, httpError, toErrorResponse } from './error-status.js';
import { readJsonBody } from './read-json-body.js';
import { readRunStart } from './read-run-start.js';
import { cursorOf } from './run-follow.js';
import { isPlainObject } from '../src/util/plain-object.js';
import { quoted, suggestionFor } from '../src/util/suggest.js';
import { respondWithRun } from './respond-with-run.js';
import { hostGuard, originGuard } from './request-guard.js';
import { createSanitizer, type Sanitizer } from '../src/events/outbound.js';
import { VERSION } from '../src/version.js';
import { mountMcpRoute } from './mcp-route.js';
import { quoteText } from '../src/util/cut-text.js';

/** Reviews a finished run from the trace store (the Reflector, docs/spec.md#54-run-review-the-reflector-seed-002). */
export type RunReviewer = (
  runId: string,
  context: { traceStore: TraceStore; agent?: CompiledAgent; learn: boolean },
) => Promise<unknown>;

/** The default reviewer: the engine's `reviewRun` over the trace store (`?learn=true` stores insights). */
const defaultReviewer: RunReviewer = (runId, { traceStore, learn }) => reviewRun({ traceStore, runId, learn });

export interface AppOptions {
  agents: Record<string, CompiledAgent> | AgentSource;
  traceStore: TraceStore;
  checkpointStore: CheckpointStore;
  llm?: RunOptions['llm'];
  /**
   * Bearer tokens and the role each one grants; when present, every route but /health needs one,
   * and a run may be forked or resumed only with the token that started it or by one of
   * `adminRoles` (default `admin`; worker/run-access.ts).
   */
  auth?: { tokens: Record<string, string>; adminRoles?: readonly string[] };
  /** Request body limit in bytes (default 1 MiB). */
  limits?: { maxBodyBytes?: number };
  /**
   * Origins allowed to call the app from a browser, besides its own (`*` for any): they get CORS
   * headers, and a request with any other `Origin` is refused (403). Unset: only the app's own
   * origin (the web demo served beside it).
   */
  cors?: { origins: string[] | '*' };
  /**
   * The `Host` values accepted (403 otherwise), read per request; unset: any. A loopback server
   * sets its loopback names and port (worker/node/node.ts), which stops DNS rebinding.
   */
  allowedHosts?: () => readonly string[];
  /**
   * Values templates see as `secrets` (redacted from traces and responses). Never put the model
   * key here: templates have no need to read it (llm.overrides.api_key is redacted anyway).
   */
  secrets?: Record<string, string>;
  /** Tighter run limits for every run served (each the minimum with the agent's own). */
  runLimits?: RunOptions['limits'];
  /**
   * The host's turn-taking, shared by every run it serves (a long-lived process: `hostYield()`
   * made once), so busy runs together hold its event loop one budget between turns.
   */
  breathe?: RunOptions['breathe'];
  /** Agent files the served agents may run as sub-runs (agent.* with `{file: …}`); unset: refused. */
  agentFiles?: RunOptions['agentFiles'];
  /** The file root of file.read / file.write (a folder, an R2 bucket); unset: refused. */
  files?: RunOptions['files'];
  /** The run reviewer behind GET /runs/:id/review (default: `reviewRun`); `false` answers 501. */
  review?: RunReviewer | false;
  /** SSE comment-line interval while a run is quiet, in ms (default 5000; 0 turns it off). */
  sseHeartbeatMs?: number;
  /** Reported by /health (default: the package version). */
  version?: string;
  /**
   * Routes registered after the guards and before the built-in routes, which they take over for
   * the paths they answer: the Cloudflare entry's Durable Object runs (worker/cloudflare/durable-routes.ts),
   * background runs in the process on Node (worker/node/local-runs.ts).
   */
  routes?: (app: Hono<AppEnv>, context: RouteContext) => void;
}

/** What `AppOptions.routes` gets: the app's agents, stores, run options and outbound redaction. */
export interface RouteContext {
  agents: AgentSource;
  traceStore: TraceStore;
  checkpointStore: CheckpointStore;
  /** The run options of a request (its role, the host's model overrides, limits, secrets, and its signal). */
  runOptions: (c: Context<AppEnv>) => RunOptions;
  /** The host's run options without a request (a run a host continues by itself after a restart). */
  hostRunOptions: () => RunOptions;
  sanitizer: Sanitizer;
  heartbeatMs: number;
}

/** The app's per-request variables: the caller's role and, as the owner of the runs it starts, its token's fingerprint. */
export type AppEnv = { Variables: { role: string | undefined; owner: RunOwner | undefined } };

export const PACKAGE_VERSION = VERSION;

export function createApp(options: AppOptions): Hono<AppEnv> {
  const agents = toAgentSource(options.agents);
  const { traceStore, checkpointStore } = options;
  const maxBodyBytes = options.limits?.maxBodyBytes ?? 1024 * 1024;
  const tokens = options.auth?.tokens;
  const resuming = new Set<string>();
  const app = new Hono<AppEnv>();

  app.onError((error) => {
    if (error instanceof HTTPException && !isAgentErrorLike(error)) {
      return errorResponse(error.status === 413 ? 'INPUT_TOO_LARGE' : 'INVALID_PARAMS', error.message);
    }
    const { body } = toErrorResponse(error);
    return errorJsonResponse(body.error);
  });
  app.notFound((c) => errorResponse('NOT_FOUND', `no route ${c.req.method} ${new URL(c.req.url).pathname}`));

  const outbound = createSanitizer([...Object.values(options.secrets ?? {}), options.llm?.overrides?.api_key]);
  if (outbound.secrets.length > 0) app.use('*', redactJsonBodies(outbound));
  if (options.allowedHosts !== undefined) app.use('*', hostGuard(options.allowedHosts));
  app.use('*', originGuard(options.cors?.origins ?? []));
  if (options.cors !== undefined) {
    const origins = options.cors.origins;
    app.use(
      '*',
      cors({
        origin: origins === '*' ? '*' : [...origins],
        allowHeaders: ['content-type', 'authorization', 'accept'],
        allowMethods: ['GET', 'POST', 'OPTIONS'],
        maxAge: 600,
      }),
    );
  }
  app.use('*', async (c, next) => {
    const path = new URL(c.req.url).pathname;
    if (tokens !== undefined && Object.keys(tokens).length > 0 && path !== '/health' && c.req.method !== 'OPTIONS') {
      const caller = roleOf(c.req.header('authorization'), tokens);
      c.set('role', caller.role);
      c.set('owner', caller);
    }
    await next();
  });
  app.use('*', runAccessGuard({ traceStore, checkpointStore }, options.auth?.adminRoles ?? DEFAULT_ADMIN_ROLES));
  app.use('*', knownQueryOnly());
  app.use(
    '*',
    bodyLimit({
      maxSize: maxBodyBytes,
      onError: () => errorResponse('INPUT_TOO_LARGE', `the request body is larger than ${maxBodyBytes} bytes`),
    }),
  );

  const hostRunOptions = (): RunOptions => {
    const base: RunOptions = { traceStore, checkpointStore };
    if (options.llm !== undefined) base.llm = options.llm;
    if (options.secrets !== undefined) base.secrets = options.secrets;
    if (options.runLimits !== undefined) base.limits = options.runLimits;
    if (options.agentFiles !== undefined) base.agentFiles = options.agentFiles;
    if (options.files !== undefined) base.files = options.files;
    if (options.breathe !== undefined) base.breathe = options.breathe;
    return base;
  };
  const runOptions = (c: Context<AppEnv>): RunOptions => {
    const base: RunOptions = { ...hostRunOptions(), signal: c.req.raw.signal };
    const role = c.get('role');
    if (role !== undefined) base.role = role;
    const owner = c.get('owner');
    if (owner !== undefined) base.owner = owner;
    return base;
  };
  const wantsStream = (c: Context) => (c.req.header('accept') ?? '').includes('text/event-stream');
  const waitUntil = (c: Context) => (promise: Promise<unknown>) => {
    try {
      c.executionCtx.waitUntil(promise);
    } catch {
      // Node and Deno have no execution context: the process outlives the response anyway.
    }
  };

  const responseOptions = (c: Context) => ({
    stream: wantsStream(c),
    waitUntil: waitUntil(c),
    heartbeatMs: options.sseHeartbeatMs ?? 5000,
    sanitizer: outbound,
  });

  options.routes?.(app, {
    agents,
    traceStore,
    checkpointStore,
    runOptions,
    hostRunOptions,
    sanitizer: outbound,
    heartbeatMs: options.sseHeartbeatMs ?? 5000,
  });

  app.get('/health', (c) => c.json({ ok: true, version: options.version ?? PACKAGE_VERSION }));

  app.get('/agents', async (c) => c.json(await agents.list()));

  app.get('/agents/:name', async (c) => {
    const agent = await agents.get(c.req.param('name'));
    if (agent === undefined) throw httpError('NOT_FOUND', `no agent '${c.req.param('name')}'`);
    const source = agents.source?.(agent.name);
    return c.json({
      name: agent.name,
      description: agent.description ?? '',
      spec: agent.spec,
      ...(source !== undefined ? { source } : {}),
    });
  });

  app.post('/agents/:name/runs', async (c) => {
    const { agent, input } = await readRunStart(c, agents);
    const run = runAgent(agent, input, runOptions(c));
    return respondWithRun(c, run, responseOptions(c));
  });

  app.post('/runs/:id/resume', async (c) => {
    const runId = c.req.param('id');
    const resume = readResumeInput(await readJsonBody(c.req.raw, RESUME_KEYS));
    // Two resumes in this isolate: the second is refused at once (the store's claim covers others).
    if (resuming.has(runId)) throw httpError('CONFLICT', `run '${runId}' is already being resumed`);
    resuming.add(runId);
    try {
      const run = await resumeRun((name) => agents.get(name), runId, resume, runOptions(c));
      void run.result.finally(() => resuming.delete(runId));
      return await respondWithRun(c, run, responseOptions(c));
    } catch (error) {
      resuming.delete(runId);
      throw error;
    }
  });

  // Time travel: a new run, paused after `node` of run :id with `state` (the studio's "run from here").
  app.post('/runs/:id/fork', async (c) => {
    const parentId = c.req.param('id');
    const { node, state } = readForkBody(await readJsonBody(c.req.raw, FORK_KEYS));
    const parent = await traceStore.getRun(parentId);
    if (parent === undefined) throw httpError('NOT_FOUND', `no run '${parentId}'`);
    const agent = await agents.get(parent.agent);
    if (agent === undefined)
      throw httpError('NOT_FOUND', `run '${parentId}' belongs to agent '${parent.agent}', which is not served here`);
    const runId = crypto.randomUUID();
    const owner = c.get('owner');
    await forkRun(
      agent,
      { traceStore, checkpointStore },
      { run_id: runId, parent_run_id: parentId, node, state, ...(owner !== undefined ? { owner } : {}) },
    );
    return c.json({ run_id: runId, parent_run_id: parentId, node }, 201);
  });

  app.get('/runs', async (c) => {
    const limit = limitOf(c.req.query('limit'));
    const page = await traceStore.listRuns({
      ...(c.req.query('agent') !== undefined ? { agent: c.req.query('agent')! } : {}),
      ...(limit !== undefined ? { limit } : {}),
      ...(c.req.query('cursor') !== undefined ? { cursor: c.req.query('cursor')! } : {}),
    });
    return c.json(page);
  });

  app.get('/runs/:id', async (c) => {
    const record = await traceStore.getRun(c.req.param('id'));
    if (record === undefined) throw httpError('NOT_FOUND', `no run '${c.req.param('id')}'`);
    return c.json(record);
  });

  app.get('/runs/:id/events', async (c) => {
    const runId = c.req.param('id');
    const events = await traceStore.readEvents(runId);
    if (events.length === 0 && (await traceStore.getRun(runId)) === undefined)
      throw httpError('NOT_FOUND', `no run '${runId}'`);
    const after = cursorOf(c.req.raw);
    const text = events
      .filter((event) => event.seq > after)
      .map((event) => JSON.stringify(event) + '\n')
      .join('');
    return c.body(text, 200, { 'content-type': 'application/x-ndjson; charset=utf-8' });
  });

  app.get('/runs/:id/review', async (c) => {
    const runId = c.req.param('id');
    const reviewer = options.review ?? defaultReviewer;
    if (reviewer === false) return errorResponse('NOT_IMPLEMENTED', 'this server has no run reviewer');
    const record = await traceStore.getRun(runId);
    if (record === undefined) throw httpError('NOT_FOUND', `no run '${runId}'`);
    const agent = await agents.get(record.agent);
    return c.json(
      await reviewer(runId, {
        traceStore,
        learn: c.req.query('learn') === 'true',
        ...(agent !== undefined ? { agent } : {}),
      }),
    );
  });

  mountMcpRoute(app, { agents, sanitizer: outbound });

  // A known route asked with another method: 405 in the error shape, with the methods it has.
  for (const [path, method] of ROUTES) {
    app.all(path, (c) => {
      const response = errorResponse(
        'METHOD_NOT_ALLOWED',
        `${new URL(c.req.url).pathname} answers ${method} only, not ${c.req.method}`,
      );
      response.headers.set('allow', method === 'GET' ? 'GET, HEAD' : method);
      return response;
    });
  }

  return app;
}

/** `?limit=`: an integer from 1 to 1000 (400 otherwise, rather than a silent default). */
function limitOf(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const limit = Number(text);
  if (!/^\d+$/.test(text) || limit < 1 || limit > 1000)
    throw httpError('INVALID_PARAMS', `limit must be an integer from 1 to 1000, got ${quoteText(text, 40)}`, {
      field: 'limit',
    });
  return limit;
}

/** Every route and its method (the 405 table). */
const ROUTES: ReadonlyArray<readonly [string, 'GET' | 'POST']> = [
  ['/health', 'GET'],
  ['/agents', 'GET'],
  ['/agents/:name/runs', 'POST'],
  ['/runs/:id/resume', 'POST'],
  ['/runs', 'GET'],
  ['/runs/:id', 'GET'],
  ['/runs/:id/events', 'GET'],
  ['/runs/:id/review', 'GET'],
];

/**
 * The query parameters each API route understands (routes of every host: the durable ones add
 * cancel). Any other parameter is 400 INVALID_PARAMS naming the nearest known one, as an unknown
 * body key is: `?agnet=x` must not list every agent's runs. Paths not listed (static files of
 * `serve`, /mcp) are not checked here.
 */
const QUERY_KEYS: ReadonlyArray<readonly [method: string, path: RegExp, keys: readonly string[]]> = [
  ['GET', /^\/health$/, []],
  ['GET', /^\/agents$/, []],
  ['GET', /^\/agents\/[^/]+$/, []],
  ['POST', /^\/agents\/[^/]+\/runs$/, ['cancel_on_disconnect']],
  ['POST', /^\/runs\/[^/]+\/resume$/, ['cancel_on_disconnect']],
  ['POST', /^\/runs\/[^/]+\/(cancel|fork)$/, []],
  ['GET', /^\/runs$/, ['agent', 'limit', 'cursor']],
  ['GET', /^\/runs\/[^/]+$/, []],
  ['GET', /^\/runs\/[^/]+\/events$/, ['after']],
  ['GET', /^\/runs\/[^/]+\/review$/, ['learn']],
];

/** Parameters other APIs use for what this one asks another way. */
const QUERY_HINTS: Readonly<Record<string, string>> = {
  background:
    '; a background run is asked for with the header `Prefer: respond-async` (202 with the run id and a Location)',
  stream: '; a stream is asked for with the header `Accept: text/event-stream`',
};

/** Refuses a query parameter the requested API route does not understand (QUERY_KEYS). */
function knownQueryOnly(): MiddlewareHandler {
  return async (c, next) => {
    const url = new URL(c.req.url);
    const method = c.req.method === 'HEAD' ? 'GET' : c.req.method;
    const keys = QUERY_KEYS.find(([routeMethod, path]) => routeMethod === method && path.test(url.pathname))?.[2];
    if (keys !== undefined) {
      for (const key of url.searchParams.keys()) {
        if (keys.includes(key)) continue;
        const known =
          (Object.hasOwn(QUERY_HINTS, key) ? QUERY_HINTS[key] : undefined) ??
          (keys.length === 0 ? '; this route takes none' : suggestionFor(key, keys));
        throw httpError('INVALID_PARAMS', `${url.pathname} has no query parameter ${quoted(key)}${known}`, {
          field: key,
        });
      }
    }
    await next();
  };
}

/**
 * Redacts the host's secrets from every JSON and NDJSON body (run results, records, stored events,
 * errors, reviews): a last guard behind the engine's own redaction. SSE is redacted per event.
 */
function redactJsonBodies(outbound: Sanitizer): MiddlewareHandler {
  return async (c, next) => {
    await next();
    const type = c.res.headers.get('content-type') ?? '';
    if (!type.includes('json') || c.res.body === null) return;
    const text = await c.res.clone().text();
    const clean = outbound.text(text);
    if (clean === text) return;
    const { status, headers } = c.res;
    c.res = new Response(clean, { status, headers });
    c.res.headers.delete('content-length');
  };
}

/** The keys of a fork request's body (`POST /runs/:id/fork`). */
export const FORK_KEYS = ['node', 'state'] as const;

/** A fork request's body, read with `readJsonBody(request, FORK_KEYS)`. */
export function readForkBody(body: Record<string, unknown>): { node: string; state: Record<string, unknown> } {
  const { node, state } = body;
  if (typeof node !== 'string' || !isPlainObject(state))
    throw httpError('INVALID_PARAMS', 'fork needs {node: string, state: object}');
  return { node, state };
}

/** The keys a resume request's body may have (readJsonBody refuses others). */
export const RESUME_KEYS = ['state_update', 'approval', 'checkpoint_id'] as const;

/** A resume request's body, read with `readJsonBody(request, RESUME_KEYS)`. */
export function readResumeInput(body: Record<string, unknown>): ResumeInput {
  const resume: ResumeInput = {};
  const { state_update: stateUpdate, approval, checkpoint_id: checkpointId } = body;
  if (stateUpdate !== undefined) {
    if (!isPlainObject(stateUpdate))
      throw httpError('INVALID_PARAMS', 'state_update must be a JSON object', { field: 'state_update' });
    resume.state_update = stateUpdate;
  }
  if (approval !== undefined) {
    if (typeof approval === 'boolean') resume.approval = { approved: approval };
    else if (isPlainObject(approval) && typeof approval.approved === 'boolean') {
      resume.approval = { ...approval, approved: approval.approved };
    } else
      throw httpError('INVALID_PARAMS', 'approval must be true, false or {approved: boolean, ...}', {
        field: 'approval',
      });
  }
  if (checkpointId !== undefined) {
    if (typeof checkpointId !== 'string' || checkpointId === '')
      throw httpError(
        'INVALID_PARAMS',
        'checkpoint_id must be a non-empty string (the interrupt.checkpoint_id of the paused result)',
        { field: 'checkpoint_id' },
      );
    resume.checkpoint_id = checkpointId;
  }
  return resume;
}

function isAgentErrorLike(error: unknown): boolean {
  return typeof (error as { code?: unknown }).code === 'string';
}
