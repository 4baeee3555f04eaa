/**
 * The HTTP side of durable runs on Deno (worker/deno/deno-runs.ts), the same contract as the run
 * coordinator's routes on Cloudflare (worker/cloudflare/durable-routes.ts) and the process's on Node
 * (worker/node/local-runs.ts):
 *
 *   POST /agents/:name/runs   `Prefer: respond-async`: 202 `{run_id, status: "running"}` with
 *                             `Location: /runs/:id`, the run queued with `kv.enqueue`;
 *                             `Accept: text/event-stream`: the run's events as SSE; else the
 *                             result as JSON. The run goes on when the client leaves, unless it
 *                             asked `?cancel_on_disconnect=1`.
 *   POST /runs/:id/resume     the same three ways; exactly one concurrent resume wins (409 others).
 *   POST /runs/:id/cancel     stops the run wherever it executes; answers its result.
 *   GET  /runs/:id/events     NDJSON after `?after=`; SSE after `Last-Event-ID` (or `?after=`),
 *                             then live until no process holds the run.
 *   GET  /runs/:id            the record; a queued run not started yet is reported `running`.
 */
import type { Context, Hono } from 'hono';
import { readResumeInput, RESUME_KEYS, type AppEnv, type AppOptions, type RouteContext } from '../app.js';
import { httpError } from '../error-status.js';
import { readJsonBody } from '../read-json-body.js';
import { readRunStart } from '../read-run-start.js';
import type { DenoRuns, HostedRun } from './deno-runs.js';
import type { RunCaller } from './deno-run-state.js';
import { answerRun, cancelOnDisconnectOf, resultResponse, respondModeOf } from '../run-answer.js';
import { cursorOf, followResponse, ndjsonResponse } from '../run-follow.js';

/** Longer than any run id this host makes (UUIDs): such an id is answered 404 before reaching KV. */
const MAX_RUN_ID = 200;

export function denoRunRoutes(runs: DenoRuns): NonNullable<AppOptions['routes']> {
  return (app: Hono<AppEnv>, context: RouteContext) => {
    const { agents, traceStore, sanitizer, heartbeatMs } = context;

    /** Answers a start or resume executing here: as asked, following its segment from `after`. */
    const answer = (c: Context<AppEnv>, hosted: HostedRun, after: number) => {
      const cancelOnDisconnect = cancelOnDisconnectOf(c.req.url);
      const leave = () => hosted.run.cancel('the client disconnected');
      const mode = respondModeOf(c.req.raw.headers);
      if (cancelOnDisconnect && mode === 'json') c.req.raw.signal.addEventListener('abort', leave, { once: true });
      const follow = () => {
        const { log, live } = runs.log.follower(hosted.runId, async () => runs.hosted(hosted.runId) === hosted);
        return followResponse(log, { after, live, untilDone: true, heartbeatMs, sanitizer, ...(cancelOnDisconnect ? { onDisconnect: leave } : {}) });
      };
      return answerRun(hosted, { mode, runId: hosted.runId, sanitizer, follow });
    };

    // Run ids become Deno KV key parts (2 KiB at most): an id no run can have is simply unknown.
    const knownLength = async (c: Context<AppEnv>, next: () => Promise<void>) => {
      const runId = c.req.param('id') ?? '';
      if (runId.length > MAX_RUN_ID) throw httpError('NOT_FOUND', `no run '${runId.slice(0, MAX_RUN_ID)}…'`);
      await next();
    };
    app.use('/runs/:id', knownLength);
    app.use('/runs/:id/*', knownLength);

    app.post('/agents/:name/runs', async (c) => {
      const { agent, input } = await readRunStart(c, agents);
      const caller = callerOf(c);
      if (respondModeOf(c.req.raw.headers) === 'async') {
        const runId = await runs.startInBackground(agent, input, caller);
        const headers = { location: `/runs/${encodeURIComponent(runId)}`, 'preference-applied': 'respond-async' };
        return Response.json({ run_id: runId, status: 'running' }, { status: 202, headers });
      }
      return answer(c, await runs.startHere(agent, input, caller), 0);
    });

    app.post('/runs/:id/resume', async (c) => {
      const resume = readResumeInput(await readJsonBody(c.req.raw, RESUME_KEYS));
      const { hosted, after } = await runs.resume(c.req.param('id'), resume, callerOf(c));
      return answer(c, hosted, after);
    });

    app.post('/runs/:id/cancel', async (c) => {
      await readJsonBody(c.req.raw, []);
      const { hosted, result } = await runs.cancel(c.req.param('id'), 'cancelled by POST /runs/:id/cancel');
      return resultResponse(result, hosted ?? { run: undefined as never, finished: Promise.resolve(result), events: 1 }, sanitizer, 200);
    });

    app.get('/runs/:id/events', async (c) => {
      const runId = c.req.param('id');
      const after = cursorOf(c.req.raw);
      const running = await runs.running(runId);
      if (!running && (await traceStore.getRun(runId)) === undefined) throw httpError('NOT_FOUND', `no run '${runId}'`);
      if ((c.req.header('accept') ?? '').includes('text/event-stream')) {
        const { log, live } = runs.log.follower(runId, () => runs.running(runId));
        return followResponse(log, { after, live, untilDone: false, heartbeatMs, sanitizer });
      }
      return ndjsonResponse(await runs.log.eventsAfter(runId, after), sanitizer);
    });

    app.get('/runs/:id', async (c, next) => {
      const runId = c.req.param('id');
      if ((await traceStore.getRun(runId)) !== undefined) return next();
      const queued = await runs.queuedRecord(runId);
      return queued === undefined ? next() : c.json(queued);
    });
  };
}

/** The request's caller: its role and, for the runs it starts, its owner (worker/run-access.ts). */
function callerOf(c: Context<AppEnv>): RunCaller {
  const role = c.get('role');
  const owner = c.get('owner');
  return { ...(role !== undefined ? { role } : {}), ...(owner !== undefined ? { owner } : {}) };
}
