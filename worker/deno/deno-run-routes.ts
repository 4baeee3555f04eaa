/**
 * The HTTP side of durable runs on Deno (worker/deno/deno-runs.ts): the run routes
 * (worker/run-routes.ts, the same on every host) over a host that keeps runs in Deno KV:
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
import type { Context } from 'hono';
import type { AppEnv, AppOptions } from '../app.js';
import { httpError } from '../error-status.js';
import type { DenoRuns, HostedRun } from './deno-runs.js';
import { answerRun, resultResponse } from '../run-answer.js';
import { followResponse, ndjsonResponse } from '../run-follow.js';
import { runRoutes, type RunCall } from '../run-routes.js';

/** The run routes (worker/run-routes.ts) over Deno KV runs. */
export function denoRunRoutes(runs: DenoRuns): NonNullable<AppOptions['routes']> {
  return runRoutes(({ traceStore, sanitizer, heartbeatMs }) => {
    /** Answers a start or resume executing here: as asked, following its segment from `after`. */
    const answer = (call: RunCall, hosted: HostedRun, after: number) => {
      const leave = () => hosted.run.cancel('the client disconnected');
      if (call.cancelOnDisconnect && call.mode === 'json')
        call.c.req.raw.signal.addEventListener('abort', leave, { once: true });
      const follow = () => {
        const { log, live } = runs.log.follower(hosted.runId, async () => runs.hosted(hosted.runId) === hosted);
        return followResponse(log, {
          after,
          live,
          untilDone: true,
          heartbeatMs,
          sanitizer,
          ...(call.cancelOnDisconnect ? { onDisconnect: leave } : {}),
        });
      };
      return answerRun(hosted, { mode: call.mode, runId: hosted.runId, sanitizer, follow });
    };

    return {
      async start(call, { agent, input }) {
        if (call.mode === 'async') {
          const runId = await runs.startInBackground(agent, input, call.caller);
          const headers = { location: `/runs/${encodeURIComponent(runId)}`, 'preference-applied': 'respond-async' };
          return Response.json({ run_id: runId, status: 'running' }, { status: 202, headers });
        }
        return answer(call, await runs.startHere(agent, input, call.caller), 0);
      },

      async resume(call, runId, resume) {
        const { hosted, after } = await runs.resume(runId, resume, call.caller);
        return answer(call, hosted, after);
      },

      async cancel(runId) {
        const { hosted, result } = await runs.cancel(runId, 'cancelled by POST /runs/:id/cancel');
        return resultResponse(
          result,
          hosted ?? { run: undefined as never, finished: Promise.resolve(result), events: 1 },
          sanitizer,
          200,
        );
      },

      async events(_c: Context<AppEnv>, runId, after, follow) {
        const running = await runs.running(runId);
        if (!running && (await traceStore.getRun(runId)) === undefined)
          throw httpError('NOT_FOUND', `no run '${runId}'`);
        if (follow) {
          const { log, live } = runs.log.follower(runId, () => runs.running(runId));
          return followResponse(log, { after, live, untilDone: false, heartbeatMs, sanitizer });
        }
        return ndjsonResponse(await runs.log.eventsAfter(runId, after), sanitizer);
      },

      // A queued run not started yet is reported `running`; a stored record is the app's to answer.
      async record(runId) {
        if ((await traceStore.getRun(runId)) !== undefined) return undefined;
        return runs.queuedRecord(runId);
      },
    };
  });
}
