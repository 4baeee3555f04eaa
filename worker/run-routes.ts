/**
 * The HTTP routes of durable runs, written once for every host that keeps runs beyond a request
 * (the run coordinator objects on Cloudflare, Deno KV on Deno, the process and its files on
 * Node). A host says how it starts, resumes, cancels and follows a run (`RunHost`); the routes read
 * and check the request, the same way on every host, before the host sees it:
 *
 *   POST /agents/:name/runs   `Prefer: respond-async`: 202 `{run_id, status: "running"}` with
 *                             `Location: /runs/:id`, the run goes on without the client;
 *                             `Accept: text/event-stream`: the run's events as SSE; else the result
 *                             as JSON. A client leaving a stream cancels the run only with
 *                             `?cancel_on_disconnect=1`.
 *   POST /runs/:id/resume     the same three ways; exactly one concurrent resume wins (409 others).
 *   POST /runs/:id/cancel     stops a running run; answers its result (status `cancelled`).
 *   POST /runs/:id/fork       (hosts that keep a forked run elsewhere than the app's stores)
 *   GET  /runs/:id/events     NDJSON of the events after `?after=`; with `Accept: text/event-stream`
 *                             the events after `Last-Event-ID` (or `?after=`), then the live ones.
 *   GET  /runs/:id            the record as the host knows it now (`running` while a segment runs).
 *
 * An id longer than any this package makes (UUIDs) is answered 404 before it reaches a store: it
 * names no run, and becomes no key or file name.
 */
import type { Context, Hono } from 'hono';
import type { RunOwner, RunRecord } from '../src/core/trace-store.js';
import type { CompiledAgent } from '../src/graph/compiled-agent.js';
import type { ResumeInput } from '../src/graph/run-types.js';
import {
  FORK_KEYS,
  readForkBody,
  readResumeInput,
  RESUME_KEYS,
  type AppEnv,
  type AppOptions,
  type RouteContext,
} from './app.js';
import { errorResponse, httpError } from './error-status.js';
import { readJsonBody } from './read-json-body.js';
import { readRunStart } from './read-run-start.js';
import { cancelOnDisconnectOf, respondModeOf, type RespondMode } from './run-answer.js';
import { cursorOf } from './run-follow.js';

/** Longer than any run id this package makes: such an id is unknown (404) on every host. */
export const MAX_RUN_ID = 200;

/** The caller of a request: its role and, for the runs it starts, its owner (worker/run-access.ts). */
export interface RunCaller {
  role?: string;
  owner?: RunOwner;
}

/** A start or resume request, read and checked. */
export interface RunCall {
  c: Context<AppEnv>;
  /** How the client asked to be answered (run-answer.ts). */
  mode: RespondMode;
  /** `?cancel_on_disconnect=1`: the client leaving a foreground answer cancels the run. */
  cancelOnDisconnect: boolean;
  caller: RunCaller;
}

/** What a time-travel request asks: a new run paused after `node` of `parent` with `state`. */
export interface ForkCall {
  parent: RunRecord;
  node: string;
  state: Record<string, unknown>;
  owner?: RunOwner;
}

/** A start request's agent (`name` as asked, `agent` as served) and input. */
export interface RunStart {
  name: string;
  agent: CompiledAgent;
  input: Record<string, unknown>;
}

/** How one host runs durable runs; each method answers the request. */
export interface RunHost {
  start(call: RunCall, start: RunStart): Promise<Response>;
  resume(call: RunCall, runId: string, resume: ResumeInput): Promise<Response>;
  cancel(runId: string): Promise<Response>;
  /** The events after `after`: followed live over SSE when `follow`, else NDJSON of what is stored now. */
  events(c: Context<AppEnv>, runId: string, after: number, follow: boolean): Promise<Response>;
  /** The record as this host knows it better than its trace store (undefined: the app's route answers). */
  record?(runId: string): Promise<RunRecord | undefined>;
  /** A fork kept elsewhere than the app's stores (undefined: the app's route answers). */
  fork?(call: ForkCall): Promise<Response>;
}

/** The run routes over a host made from the app's route context. */
export function runRoutes(hostOf: (context: RouteContext) => RunHost): NonNullable<AppOptions['routes']> {
  return (app: Hono<AppEnv>, context: RouteContext) => {
    const host = hostOf(context);
    const { agents, traceStore } = context;

    const knownLength = async (c: Context<AppEnv>, next: () => Promise<void>) => {
      const runId = c.req.param('id') ?? '';
      if (runId.length > MAX_RUN_ID) throw httpError('NOT_FOUND', `no run '${runId.slice(0, MAX_RUN_ID)}…'`);
      await next();
    };
    app.use('/runs/:id', knownLength);
    app.use('/runs/:id/*', knownLength);

    app.post('/agents/:name/runs', async (c) => {
      return host.start(callOf(c), await readRunStart(c, agents));
    });

    app.post('/runs/:id/resume', async (c) => {
      const resume = readResumeInput(await readJsonBody(c.req.raw, RESUME_KEYS));
      return host.resume(callOf(c), c.req.param('id'), resume);
    });

    app.post('/runs/:id/cancel', async (c) => {
      await readJsonBody(c.req.raw, []);
      return host.cancel(c.req.param('id'));
    });
    app.all('/runs/:id/cancel', (c) => {
      const response = errorResponse(
        'METHOD_NOT_ALLOWED',
        `${new URL(c.req.url).pathname} answers POST only, not ${c.req.method}`,
      );
      response.headers.set('allow', 'POST');
      return response;
    });

    const fork = host.fork?.bind(host);
    if (fork !== undefined) {
      app.post('/runs/:id/fork', async (c) => {
        const parentId = c.req.param('id');
        const { node, state } = readForkBody(await readJsonBody(c.req.raw, FORK_KEYS));
        const parent = await traceStore.getRun(parentId);
        if (parent === undefined) throw httpError('NOT_FOUND', `no run '${parentId}'`);
        if ((await agents.get(parent.agent)) === undefined)
          throw httpError(
            'NOT_FOUND',
            `run '${parentId}' belongs to agent '${parent.agent}', which is not served here`,
          );
        const owner = c.get('owner');
        return fork({ parent, node, state, ...(owner !== undefined ? { owner } : {}) });
      });
    }

    app.get('/runs/:id/events', async (c) => {
      const follow = (c.req.header('accept') ?? '').includes('text/event-stream');
      return host.events(c, c.req.param('id'), cursorOf(c.req.raw), follow);
    });

    const record = host.record?.bind(host);
    if (record !== undefined) {
      app.get('/runs/:id', async (c, next) => {
        const known = await record(c.req.param('id'));
        return known === undefined ? next() : c.json(known);
      });
    }
  };
}

function callOf(c: Context<AppEnv>): RunCall {
  const role = c.get('role');
  const owner = c.get('owner');
  return {
    c,
    mode: respondModeOf(c.req.raw.headers),
    cancelOnDisconnect: cancelOnDisconnectOf(c.req.url),
    caller: { ...(role !== undefined ? { role } : {}), ...(owner !== undefined ? { owner } : {}) },
  };
}
