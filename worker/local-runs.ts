/**
 * Background runs and resumable streams in one long-lived process (`tea-edge serve` on Node): the
 * same contract as the Durable Object runs on Cloudflare (worker/durable-routes.ts), with the
 * process as the coordinator. A run executes in the process, not in its request: it goes on when
 * the client leaves (unless `?cancel_on_disconnect=1`); `Prefer: respond-async` answers 202 with
 * `Location`; `POST /runs/:id/cancel` stops it; `GET /runs/:id/events` follows it over SSE from
 * `Last-Event-ID` / `?after=`, NDJSON keeps `?after=`.
 *
 * Where a follower reads: the events of finished segments from the app's trace store, the running
 * segment's from an in-memory buffer that holds each of its events from the first (the store only
 * gets them in batches). The union by seq has no gap and, read through a cursor, nothing twice.
 * Claims are the checkpoint store's (atomic for the file store in one process) plus the registry:
 * a run that executes here cannot be resumed again. A process that stops loses its running runs
 * (their records stay `running`); continuing them after a restart is not done.
 */
import type { Context, Hono } from 'hono';
import type { AgentEvent } from '../src/events/event.js';
import { resumeAgent, runAgent } from '../src/graph/run-agent.js';
import type { AgentRun, RunOptions } from '../src/graph/run-types.js';
import { readResumeInput, type AppEnv, type RouteContext } from './app.js';
import { httpError } from './error-status.js';
import { readJsonBody } from './read-json-body.js';
import { readRunStart } from './read-run-start.js';
import { answerRun, cancelOnDisconnectOf, driveRun, resultResponse, respondModeOf, type ActiveRun } from './run-answer.js';
import { waitForWake } from './durable-run-store.js';
import { cursorOf, followResponse, ndjsonResponse, type EventLog } from './run-follow.js';

interface LocalRun extends ActiveRun {
  /** Every event of this segment, from its first. */
  buffer: AgentEvent[];
  waiters: Set<() => void>;
}

export function localRunRoutes(): NonNullable<import('./app.js').AppOptions['routes']> {
  return (app: Hono<AppEnv>, context: RouteContext) => {
    const runs = new Map<string, LocalRun>();
    const { agents, traceStore, sanitizer, heartbeatMs } = context;

    const optionsFor = (c: Context<AppEnv>): RunOptions => {
      const options = context.runOptions(c);
      // The run belongs to the process: the request's signal cancels it only when the client asked.
      if (!cancelOnDisconnectOf(c.req.url)) delete options.signal;
      return options;
    };

    const execute = (runId: string, run: AgentRun): LocalRun => {
      const waiters = new Set<() => void>();
      const buffer: AgentEvent[] = [];
      const wake = () => {
        for (const waiter of [...waiters]) waiter();
        waiters.clear();
      };
      const local: LocalRun = Object.assign(
        driveRun(run, (event) => {
          buffer.push(event);
          wake();
        }),
        { buffer, waiters },
      );
      local.finished = local.finished.finally(() => {
        if (runs.get(runId) === local) runs.delete(runId);
        wake();
      });
      runs.set(runId, local);
      return local;
    };

    /** The running segment only: what a foreground stream answers. */
    const segmentLog = (local: LocalRun): EventLog => ({
      eventsAfter: (after) => local.buffer.filter((event) => event.seq > after),
      changed: (ms) => waitForWake(local.waiters, ms),
    });

    /** The whole run: the store's events, then the running segment's buffer. */
    const runLog = (runId: string): EventLog => ({
      async eventsAfter(after) {
        const local = runs.get(runId);
        const first = local?.buffer[0]?.seq;
        if (local !== undefined && first !== undefined && after >= first - 1) return local.buffer.filter((event) => event.seq > after);
        const stored = (await traceStore.readEvents(runId)).filter((event) => event.seq > after);
        const last = stored.at(-1)?.seq ?? after;
        return [...stored, ...(local?.buffer.filter((event) => event.seq > last) ?? [])];
      },
      changed: (ms) => {
        const local = runs.get(runId);
        return local === undefined ? Promise.resolve(true) : waitForWake(local.waiters, ms);
      },
    });

    const answer = (c: Context<AppEnv>, runId: string, local: LocalRun) => {
      const follow = () =>
        followResponse(segmentLog(local), {
          after: 0,
          live: () => runs.get(runId) === local,
          untilDone: true,
          heartbeatMs,
          sanitizer,
          ...(cancelOnDisconnectOf(c.req.url) ? { onDisconnect: () => local.run.cancel('the client disconnected') } : {}),
        });
      return answerRun(local, { mode: respondModeOf(c.req.raw.headers), runId, sanitizer, follow });
    };

    app.post('/agents/:name/runs', async (c) => {
      const { agent, input } = await readRunStart(c, agents);
      const runId = crypto.randomUUID();
      return answer(c, runId, execute(runId, runAgent(agent, input, { ...optionsFor(c), runId })));
    });

    app.post('/runs/:id/resume', async (c) => {
      const runId = c.req.param('id');
      const resume = readResumeInput(await readJsonBody(c.req.raw));
      if (runs.has(runId)) throw httpError('CONFLICT', `run '${runId}' is already running`);
      const checkpoint = await context.checkpointStore.loadLatest(runId);
      if (checkpoint === undefined) {
        const record = await traceStore.getRun(runId);
        if (record === undefined) throw httpError('NOT_FOUND', `no run '${runId}'`);
        throw httpError('CONFLICT', `run '${runId}' is ${record.status}; only an interrupted run can be resumed`);
      }
      const agent = await agents.get(checkpoint.agent);
      if (agent === undefined) throw httpError('NOT_FOUND', `run '${runId}' belongs to agent '${checkpoint.agent}', which is not served here`);
      if (runs.has(runId)) throw httpError('CONFLICT', `run '${runId}' is already running`);
      return answer(c, runId, execute(runId, resumeAgent(agent, runId, resume, optionsFor(c))));
    });

    app.post('/runs/:id/cancel', async (c) => {
      await readJsonBody(c.req.raw);
      const runId = c.req.param('id');
      const local = runs.get(runId);
      if (local === undefined) {
        const record = await traceStore.getRun(runId);
        if (record === undefined) throw httpError('NOT_FOUND', `no run '${runId}'`);
        throw httpError('CONFLICT', `run '${runId}' is ${record.status}, not running; only a running run can be cancelled`);
      }
      local.run.cancel('cancelled by POST /runs/:id/cancel');
      return resultResponse(await local.finished, local, sanitizer, 200);
    });

    app.get('/runs/:id/events', async (c) => {
      const runId = c.req.param('id');
      const after = cursorOf(c.req.raw);
      if (!runs.has(runId) && (await traceStore.getRun(runId)) === undefined) throw httpError('NOT_FOUND', `no run '${runId}'`);
      if ((c.req.header('accept') ?? '').includes('text/event-stream')) {
        return followResponse(runLog(runId), { after, live: () => runs.has(runId), untilDone: false, heartbeatMs, sanitizer });
      }
      return ndjsonResponse(await runLog(runId).eventsAfter(after), sanitizer);
    });
  };
}
