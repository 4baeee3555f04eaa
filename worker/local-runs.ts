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
 *
 * Surviving the process (with `durable`, worker/durable-fs.ts): a run executes under a lease file
 * of this process; each event reaches the buffer (and so followers) once it is in the run's live
 * log on disk; a node checkpoint is saved before every node. A server that starts finds the runs
 * whose process died and continues them from their checkpoint (the node that was running runs
 * again, with the same idempotency key; recorded tool results are not fetched again), or closes
 * them as failed saying why (worker/durable-continue.ts). Claims are the checkpoint store's (a
 * pause) and the lease (a run whose process died): one process wins each.
 */
import type { Context, Hono } from 'hono';
import type { AgentEvent, StopReason } from '../src/events/event.js';
import { AgentError } from '../src/errors/agent-error.js';
import { resumeAgent, runAgent } from '../src/graph/run-agent.js';
import { continueFromNode } from '../src/graph/resume-run.js';
import type { AgentRun, RunOptions } from '../src/graph/run-types.js';
import { readResumeInput, RESUME_KEYS, type AppEnv, type RouteContext } from './app.js';
import { httpError } from './error-status.js';
import { readJsonBody } from './read-json-body.js';
import { readRunStart } from './read-run-start.js';
import { answerRun, cancelOnDisconnectOf, driveRun, resultResponse, respondModeOf, type ActiveRun } from './run-answer.js';
import { waitForWake } from './durable-run-store.js';
import { cursorOf, followResponse, ndjsonResponse, type EventLog } from './run-follow.js';
import { noCheckpointError, recordAfterDone, whyNotContinue, type ResumePoint } from './durable-continue.js';
import type { DurableRunFiles, OrphanRun } from './durable-fs.js';

interface LocalRun extends ActiveRun {
  /** Every event of this segment, from its first, once it is in the live log. */
  buffer: AgentEvent[];
  waiters: Set<() => void>;
}

/** How messages name this host. */
const HOST = 'server process';
/** Milliseconds between reads of a run executed by another process, for its followers here. */
const OTHER_PROCESS_POLL_MS = 200;

export function localRunRoutes(durable?: DurableRunFiles): NonNullable<import('./app.js').AppOptions['routes']> {
  return (app: Hono<AppEnv>, context: RouteContext) => {
    const runs = new Map<string, LocalRun>();
    const { agents, traceStore, sanitizer, heartbeatMs } = context;

    const optionsFor = (c: Context<AppEnv>): RunOptions => {
      const options = context.runOptions(c);
      // The run belongs to the process: the request's signal cancels it only when the client asked.
      if (!cancelOnDisconnectOf(c.req.url)) delete options.signal;
      return options;
    };

    /** The options with this process's durability hooks for the run (`continuedFrom`: a dead process's point). */
    const durableOptions = (runId: string, options: RunOptions, continuedFrom?: ResumePoint): RunOptions =>
      durable === undefined ? options : { ...options, durability: durable.durability(runId, options.role, continuedFrom) };

    const execute = (runId: string, run: AgentRun): LocalRun => {
      const waiters = new Set<() => void>();
      const buffer: AgentEvent[] = [];
      const wake = () => {
        for (const waiter of [...waiters]) waiter();
        waiters.clear();
      };
      const show = (events: AgentEvent[]) => {
        buffer.push(...events);
        wake();
      };
      const live = durable === undefined ? undefined : liveLog(durable, runId, show);
      const local: LocalRun = Object.assign(
        driveRun(run, (event) => (live === undefined ? show([event]) : live.push(event))),
        { buffer, waiters },
      );
      local.finished = local.finished.then(async (result) => {
        await live?.idle();
        // The session flushed the trace store before it ended: the segment's files can go.
        await durable?.endSegment(runId).catch(() => undefined);
        return result;
      });
      local.finished = local.finished.finally(() => {
        if (runs.get(runId) === local) runs.delete(runId);
        wake();
      });
      runs.set(runId, local);
      return local;
    };

    /** Claims a run for this process before it executes here (a new run, a resumed pause). */
    const claim = async (runId: string): Promise<void> => {
      if (durable !== undefined && !(await durable.claim(runId))) throw httpError('CONFLICT', `run '${runId}' is already running`);
    };

    /** The running segment only: what a foreground stream answers. */
    const segmentLog = (local: LocalRun): EventLog => ({
      eventsAfter: (after) => local.buffer.filter((event) => event.seq > after),
      changed: (ms) => waitForWake(local.waiters, ms),
    });

    /**
     * The whole run: the store's events, then the running segment's (this process's buffer, or the
     * live log of the process that executes it).
     */
    const runLog = (runId: string): EventLog => ({
      async eventsAfter(after) {
        const local = runs.get(runId);
        const first = local?.buffer[0]?.seq;
        if (local !== undefined && first !== undefined && after >= first - 1) return local.buffer.filter((event) => event.seq > after);
        const stored = (await traceStore.readEvents(runId)).filter((event) => event.seq > after);
        const last = stored.at(-1)?.seq ?? after;
        const running = local?.buffer ?? (await durable?.liveEvents(runId).catch(() => [])) ?? [];
        return [...stored, ...running.filter((event) => event.seq > last)];
      },
      changed: (ms) => {
        const local = runs.get(runId);
        if (local !== undefined) return waitForWake(local.waiters, ms);
        // Executed by another process (or by none yet, after a crash): read again a little later.
        return new Promise((resolve) => setTimeout(() => resolve(true), Math.min(ms, OTHER_PROCESS_POLL_MS)));
      },
    });

    /**
     * Everything stored or logged now, for a one-shot read (NDJSON). The trace store can be ahead of
     * the live log (the run's last write to the log still in flight while its record already says
     * `completed`), and the log ahead of the store: both are read and merged by seq.
     */
    const eventsNow = async (runId: string, after: number): Promise<AgentEvent[]> => {
      const [stored, logged] = await Promise.all([traceStore.readEvents(runId), runLog(runId).eventsAfter(after)]);
      const bySeq = new Map<number, AgentEvent>();
      for (const event of [...logged, ...stored]) if (event.seq > after && !bySeq.has(event.seq)) bySeq.set(event.seq, event);
      return [...bySeq.values()].sort((a, b) => a.seq - b.seq);
    };

    /** More events may come: the run executes here, or its record says it is running (another process, or one to come). */
    const runIsLive = async (runId: string): Promise<boolean> => runs.has(runId) || (durable !== undefined && (await traceStore.getRun(runId).catch(() => undefined))?.status === 'running');

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

    /** Records a run whose process died, and that cannot be continued, as failed with a `done` event saying why. */
    const closeOrphan = async (runId: string, lastSeq: number, error: AgentError, stopReason: StopReason): Promise<void> => {
      const record = await traceStore.getRun(runId);
      const json = error.toJSON();
      const seq = lastSeq + 1;
      const now = new Date().toISOString();
      await traceStore.appendEvents(runId, [{ type: 'done', run_id: runId, seq, ts: now, data: { status: 'failed', stop_reason: stopReason, state: {}, error: json } }]);
      await traceStore.flush(runId);
      if (record !== undefined) await traceStore.putRun({ ...record, status: 'failed', stop_reason: stopReason, error: json, updated_at: now, event_count: seq });
      await durable?.endSegment(runId);
    };

    /** Continues a run claimed from a dead process, or closes it saying why it cannot be. */
    const continueOrphan = async ({ runId, point }: OrphanRun): Promise<void> => {
      if (durable === undefined) return;
      const last = await durable.recoverEvents(runId);
      if (last?.type === 'done') {
        // Died between its `done` event and the clean-up: nothing to continue, perhaps a record to finish.
        const record = await traceStore.getRun(runId);
        const finished = record === undefined ? undefined : recordAfterDone(record, last);
        if (finished !== undefined) await traceStore.putRun(finished);
        return durable.endSegment(runId);
      }
      const lastSeq = last?.seq ?? 0;
      if (point === undefined) return closeOrphan(runId, lastSeq, noCheckpointError(runId, HOST), 'error');
      const agent = await agents.get(point.checkpoint.agent);
      const refused = whyNotContinue(point, agent, Date.now(), HOST);
      if (refused !== undefined) return closeOrphan(runId, lastSeq, refused.error, refused.stopReason);
      const counted = await durable.countRestart(runId, point);
      const options: RunOptions = { ...context.hostRunOptions(), ...(point.role !== undefined ? { role: point.role } : {}) };
      execute(runId, continueFromNode(agent!, point.checkpoint, lastSeq, durableOptions(runId, options, counted)));
    };

    if (durable !== undefined) {
      const recover = async () => {
        for (const orphan of await durable.claimOrphans().catch(() => [])) await continueOrphan(orphan).catch(() => undefined);
      };
      durable.onScan(recover);
    }

    app.post('/agents/:name/runs', async (c) => {
      const { agent, input } = await readRunStart(c, agents);
      const runId = crypto.randomUUID();
      await claim(runId);
      return answer(c, runId, execute(runId, runAgent(agent, input, durableOptions(runId, { ...optionsFor(c), runId }))));
    });

    app.post('/runs/:id/resume', async (c) => {
      const runId = c.req.param('id');
      const resume = readResumeInput(await readJsonBody(c.req.raw, RESUME_KEYS));
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
      await claim(runId);
      return answer(c, runId, execute(runId, resumeAgent(agent, runId, resume, durableOptions(runId, optionsFor(c)))));
    });

    app.post('/runs/:id/cancel', async (c) => {
      await readJsonBody(c.req.raw, []);
      const runId = c.req.param('id');
      const local = runs.get(runId);
      if (local === undefined) {
        const record = await traceStore.getRun(runId);
        if (record === undefined) throw httpError('NOT_FOUND', `no run '${runId}'`);
        throw httpError('CONFLICT', `run '${runId}' is ${record.status}, not running here; only a running run can be cancelled`);
      }
      local.run.cancel('cancelled by POST /runs/:id/cancel');
      return resultResponse(await local.finished, local, sanitizer, 200);
    });

    app.get('/runs/:id/events', async (c) => {
      const runId = c.req.param('id');
      const after = cursorOf(c.req.raw);
      if (!runs.has(runId) && (await traceStore.getRun(runId)) === undefined) throw httpError('NOT_FOUND', `no run '${runId}'`);
      if ((c.req.header('accept') ?? '').includes('text/event-stream')) {
        return followResponse(runLog(runId), { after, live: () => runIsLive(runId), untilDone: false, heartbeatMs, sanitizer });
      }
      return ndjsonResponse(await eventsNow(runId, after), sanitizer);
    });
  };
}

/**
 * The live log of a run: events are appended in the order they come, batched while a write is in
 * flight, and shown (`show`) once written. A failed write shows them anyway (the run goes on; only
 * a crash right then could lose what followers saw).
 */
function liveLog(durable: DurableRunFiles, runId: string, show: (events: AgentEvent[]) => void) {
  const queue: AgentEvent[] = [];
  let writing: Promise<void> | undefined;
  const drain = async () => {
    while (queue.length > 0) {
      const batch = queue.splice(0, queue.length);
      await durable.appendLive(runId, batch).catch(() => undefined);
      show(batch);
    }
    writing = undefined;
  };
  return {
    push(event: AgentEvent) {
      queue.push(event);
      writing ??= drain();
    },
    async idle() {
      while (writing !== undefined) await writing;
    },
  };
}
