/**
 * Background runs and resumable streams in one long-lived process (`tea-edge serve` on Node): the
 * run routes (worker/run-routes.ts, the same on every host) over a host that is the process, as the
 * coordinator objects are on Cloudflare (worker/cloudflare/durable-routes.ts). A run executes in the process, not in its request: it goes on when
 * the client leaves (unless `?cancel_on_disconnect=1`); `Prefer: respond-async` answers 202 with
 * `Location`; `POST /runs/:id/cancel` stops it; `GET /runs/:id/events` follows it over SSE from
 * `Last-Event-ID` / `?after=`, NDJSON keeps `?after=`.
 *
 * Where a follower reads: the events of finished segments from the app's trace store, the running
 * segment's from an in-memory buffer that holds each of its events from the first (the store only
 * gets them in batches). The union by seq has no gap and, read through a cursor, nothing twice.
 *
 * Surviving the process (with `durable`, worker/node/durable-fs.ts): a run executes under a lease file
 * of this process; each event reaches the buffer (and so followers) once it is in the run's live
 * log on disk; a node checkpoint is saved before every node. A server that starts finds the runs
 * whose process died and continues them from their checkpoint (the node that was running runs
 * again, with the same idempotency key; recorded tool results are not fetched again), or closes
 * them as failed saying why (worker/durable-continue.ts). Claims are the checkpoint store's (a
 * pause) and the lease (a run whose process died): one process wins each.
 *
 * Nothing is left stuck (docs/execution-model.md "What durable runs promise"): a segment's files
 * go only once its final record is written (`settle`; a run whose record cannot be written yet is
 * held, answered from memory, and written again at every scan); a resume of a run that still has
 * a segment's files (its process died, a scan will continue it) is refused and changes nothing; a
 * run the scan cannot read is closed failed with the reason. (A run recorded `running` with no
 * segment files, from `tea-edge run --trace-dir` or an older server, is left as it is: its owner
 * cannot be told from here.)
 */
import type { AgentEvent, StopReason } from '../../src/core/events.js';
import { AgentError, toAgentError } from '../../src/core/agent-error.js';
import { resumeAgent, runAgent } from '../../src/graph/run-agent.js';
import { continueFromNode } from '../../src/graph/resume-run.js';
import type { AgentRun, RunOptions, RunResult } from '../../src/graph/run-types.js';
import type { RetentionPolicy, RunRecord } from '../../src/core/trace-store.js';
import type { AppOptions } from '../app.js';
import { httpError } from '../error-status.js';
import { answerRun, driveRun, resultResponse, type ActiveRun } from '../run-answer.js';
import { runRoutes, type RunCall, type RunHost } from '../run-routes.js';
import { waitForWake } from '../durable-run-store.js';
import { followResponse, ndjsonResponse, type EventLog } from '../run-follow.js';
import { noCheckpointError, recordAfterDone, whyNotContinue, type ResumePoint } from '../durable-continue.js';
import type { DurableRunFiles, OrphanRun } from './durable-fs.js';
import { overloadedResponse, type Release, type RunSlots } from '../run-slots.js';

interface LocalRun extends ActiveRun {
  /** Every event of this segment, from its first, once it is in the live log. */
  buffer: AgentEvent[];
  waiters: Set<() => void>;
}

/** A run that ended here whose final record could not be written yet (settle tries again). */
interface Unsettled {
  agent: string;
  result: RunResult;
}

/** How messages name this host. */
const HOST = 'server process';
/** Milliseconds between reads of a run executed by another process, for its followers here. */
const OTHER_PROCESS_POLL_MS = 200;

/** Milliseconds between two applications of serve's retention policy (and once at start). */
const RETENTION_EVERY_MS = 10 * 60_000;

/**
 * `durable`: the files that make runs survive the process; `slots`: how many run at once;
 * `retention`: the history kept (applied at start and every RETENTION_EVERY_MS; never a running run).
 */
export function localRunRoutes(
  durable?: DurableRunFiles,
  slots?: RunSlots,
  retention?: RetentionPolicy,
): NonNullable<AppOptions['routes']> {
  return runRoutes((context) => {
    const runs = new Map<string, LocalRun>();
    const unsettled = new Map<string, Unsettled>();
    const { agents, traceStore, sanitizer, heartbeatMs } = context;

    const optionsFor = (call: RunCall): RunOptions => {
      const options = context.runOptions(call.c);
      // The run belongs to the process: the request's signal cancels it only when the client asked.
      if (!call.cancelOnDisconnect) delete options.signal;
      return options;
    };

    /** The options with this process's durability hooks for the run (`continuedFrom`: a dead process's point). */
    const durableOptions = (runId: string, options: RunOptions, continuedFrom?: ResumePoint): RunOptions =>
      durable === undefined
        ? options
        : { ...options, durability: durable.durability(runId, options.role, continuedFrom) };

    /**
     * Ends a segment that ran here: when its result says storage failed, the events the live log
     * holds and the trace store lacks are copied over and the final record written from the result
     * (the engine's own attempt failed); only then do the segment's files go. Until that succeeds
     * the run stays held (no other process takes it over) and is answered from memory.
     */
    const settle = async (runId: string, agent: string, result: RunResult): Promise<void> => {
      if (durable === undefined) return;
      try {
        if (result.error?.code === 'STORAGE_ERROR') {
          await durable.recoverEvents(runId);
          await traceStore.putRun(finalRecord(await traceStore.getRun(runId).catch(() => undefined), agent, result));
        }
        await durable.endSegment(runId);
        unsettled.delete(runId);
      } catch {
        unsettled.set(runId, { agent, result });
      }
    };

    /**
     * A slot for a start or resume (RunSlots: waits in line, or OVERLOADED), released when `answer`
     * fails to start the run; `execute` takes it over and gives it back when the run has ended.
     */
    const withSlot = async (answer: (release: Release) => Promise<Response>): Promise<Response> => {
      let release: Release = () => undefined;
      if (slots !== undefined) {
        try {
          release = await slots.acquire();
        } catch (error) {
          if (AgentError.isInstance(error) && error.code === 'OVERLOADED') return overloadedResponse(error);
          throw error;
        }
      }
      try {
        return await answer(release);
      } catch (error) {
        release();
        throw error;
      }
    };

    const execute = (
      runId: string,
      agent: string,
      run: AgentRun,
      release: Release = slots?.take() ?? (() => undefined),
    ): LocalRun => {
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
        // A start or resume refused before it began leaves nothing to record: only its own lease goes.
        if (local.events === 0) await durable?.endSegment(runId).catch(() => durable.release(runId));
        else await settle(runId, agent, result);
        return result;
      });
      local.finished = local.finished.finally(() => {
        if (runs.get(runId) === local) runs.delete(runId);
        release();
        wake();
      });
      runs.set(runId, local);
      return local;
    };

    /** Claims a run for this process before it executes here (a new run, a resumed pause). */
    const claim = async (runId: string): Promise<void> => {
      if (durable !== undefined && !(await durable.claim(runId)))
        throw httpError('CONFLICT', `run '${runId}' is already running`);
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
        if (local !== undefined && first !== undefined && after >= first - 1)
          return local.buffer.filter((event) => event.seq > after);
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
      for (const event of [...logged, ...stored])
        if (event.seq > after && !bySeq.has(event.seq)) bySeq.set(event.seq, event);
      return [...bySeq.values()].sort((a, b) => a.seq - b.seq);
    };

    /** More events may come: the run executes here, or its record says it is running (another process, or one to come). */
    const runIsLive = async (runId: string): Promise<boolean> =>
      runs.has(runId) ||
      (durable !== undefined && (await traceStore.getRun(runId).catch(() => undefined))?.status === 'running');

    const answer = (call: RunCall, runId: string, local: LocalRun) => {
      const follow = () =>
        followResponse(segmentLog(local), {
          after: 0,
          live: () => runs.get(runId) === local,
          untilDone: true,
          heartbeatMs,
          sanitizer,
          ...(call.cancelOnDisconnect ? { onDisconnect: () => local.run.cancel('the client disconnected') } : {}),
        });
      return answerRun(local, { mode: call.mode, runId, sanitizer, follow });
    };

    /** Records a run whose process died, and that cannot be continued, as failed with a `done` event saying why. */
    const closeOrphan = async (
      runId: string,
      lastSeq: number,
      error: AgentError,
      stopReason: StopReason,
    ): Promise<void> => {
      const record = await traceStore.getRun(runId);
      const json = error.toJSON();
      const seq = lastSeq + 1;
      const now = new Date().toISOString();
      await traceStore.appendEvents(runId, [
        {
          type: 'done',
          run_id: runId,
          seq,
          ts: now,
          data: { status: 'failed', stop_reason: stopReason, state: {}, error: json },
        },
      ]);
      await traceStore.flush(runId);
      // No record yet (its process died before writing it, after a 202 named the run): one is made.
      const base = record ?? (await recordFromStart(runId, now));
      await traceStore.putRun({
        ...base,
        status: 'failed',
        stop_reason: stopReason,
        error: json,
        updated_at: now,
        event_count: seq,
      });
      // A resumed segment that died leaves its pause's checkpoint claimed: the run ended, it goes too.
      await context.checkpointStore.delete(runId);
      await durable?.endSegment(runId);
    };

    /** A record for a run that has none: its agent and start from its `run_start` event, if stored. */
    const recordFromStart = async (runId: string, now: string): Promise<RunRecord> => {
      const first = (await traceStore.readEvents(runId)).find((event) => event.type === 'run_start');
      const agent = (first?.data as { agent?: unknown } | undefined)?.agent;
      return {
        run_id: runId,
        agent: typeof agent === 'string' ? agent : 'unknown',
        status: 'running',
        created_at: first?.ts ?? now,
        updated_at: now,
      };
    };

    /**
     * Records a run whose trace cannot be read as failed with the reason (no `done` event: its event
     * log is what is broken); GET /runs/:id/events answers STORAGE_ERROR for this run only.
     */
    const failUnreadable = async (runId: string, unreadable: unknown): Promise<void> => {
      const cause = toAgentError(unreadable, 'STORAGE_ERROR');
      const error = new AgentError(
        'STORAGE_ERROR',
        `run '${runId}' stopped when its ${HOST} was restarted and cannot be continued: ${cause.message}`,
        { details: { ...cause.details } },
      );
      const record = await traceStore.getRun(runId).catch(() => undefined);
      const now = new Date().toISOString();
      await traceStore.putRun({
        ...(record ?? { run_id: runId, agent: 'unknown', created_at: now }),
        status: 'failed',
        stop_reason: 'error',
        error: error.toJSON(),
        updated_at: now,
      });
      await durable?.endSegment(runId);
    };

    const continueOrphan = async ({ runId, point, unreadable }: OrphanRun): Promise<void> => {
      if (durable === undefined) return;
      let last: AgentEvent | undefined;
      let segmentDone: AgentEvent | undefined;
      try {
        ({ last, segmentDone } = await durable.recoverEvents(runId));
      } catch (error) {
        // A file the system refuses (EACCES, EIO) may be readable later: the next scan tries again.
        if (systemReason(error) !== undefined) throw error;
        return failUnreadable(runId, error);
      }
      if (segmentDone !== undefined) {
        // Died between its `done` event and the clean-up: nothing to continue, perhaps a record to finish.
        const record = await traceStore.getRun(runId);
        const finished = record === undefined ? undefined : recordAfterDone(record, segmentDone);
        if (finished !== undefined) await traceStore.putRun(finished);
        return durable.endSegment(runId);
      }
      const lastSeq = last?.seq ?? 0;
      if (unreadable !== undefined) {
        if (systemReason(unreadable) !== undefined) throw unreadable;
        const error = new AgentError(
          'STORAGE_ERROR',
          `run '${runId}' stopped when its ${HOST} was restarted and cannot be continued: ${unreadable.message}`,
          { details: { ...unreadable.details } },
        );
        return closeOrphan(runId, lastSeq, error, 'error');
      }
      if (point === undefined) return closeOrphan(runId, lastSeq, noCheckpointError(runId, HOST), 'error');
      const agent = await agents.get(point.checkpoint.agent);
      const refused = whyNotContinue(point, agent, Date.now(), HOST);
      if (refused !== undefined) return closeOrphan(runId, lastSeq, refused.error, refused.stopReason);
      const counted = await durable.countRestart(runId, point);
      const options: RunOptions = {
        ...context.hostRunOptions(),
        ...(point.role !== undefined ? { role: point.role } : {}),
      };
      execute(
        runId,
        point.checkpoint.agent,
        continueFromNode(agent!, point.checkpoint, lastSeq, durableOptions(runId, options, counted)),
      );
    };

    if (durable !== undefined) {
      let retainedAt = -Infinity;
      const recover = async () => {
        if (retention !== undefined && Date.now() - retainedAt >= RETENTION_EVERY_MS) {
          retainedAt = Date.now();
          await traceStore.applyRetention(retention).catch(() => 0);
        }
        for (const [runId, { agent, result }] of unsettled) await settle(runId, agent, result);
        // A run that cannot be continued or closed now (its files unwritable) is let go: the next scan tries again.
        for (const orphan of await durable.claimOrphans().catch(() => []))
          await continueOrphan(orphan).catch(() => durable.release(orphan.runId));
      };
      durable.onScan(recover);
    }

    const hostedRecord = async (runId: string): Promise<RunRecord | undefined> => {
      const pending = unsettled.get(runId);
      if (pending !== undefined)
        return finalRecord(await traceStore.getRun(runId).catch(() => undefined), pending.agent, pending.result);
      const record = await traceStore.getRun(runId);
      if (record === undefined || !runs.has(runId) || record.status === 'running') return record;
      const { stop_reason: _stop, error: _error, ...rest } = record;
      return { ...rest, status: 'running' };
    };

    const host: RunHost = {
      start: (call, { agent, input }) =>
        withSlot(async (release) => {
          const runId = crypto.randomUUID();
          await claim(runId);
          return answer(
            call,
            runId,
            execute(
              runId,
              agent.name,
              runAgent(agent, input, durableOptions(runId, { ...optionsFor(call), runId })),
              release,
            ),
          );
        }),

      async resume(call, runId, resume) {
        if (runs.has(runId) || unsettled.has(runId)) throw httpError('CONFLICT', `run '${runId}' is already running`);
        // A segment's files: the run executes in another process, or its process died and a scan
        // continues it. Refused here without touching them (a late or repeated resume).
        if (durable !== undefined && (await durable.hasSegment(runId))) {
          durable.scanSoon();
          throw httpError(
            'CONFLICT',
            `run '${runId}' is running (or being continued after its ${HOST} stopped); only an interrupted run can be resumed`,
          );
        }
        const checkpoint = await context.checkpointStore.loadLatest(runId);
        if (checkpoint === undefined) {
          const record = await traceStore.getRun(runId);
          if (record === undefined) throw httpError('NOT_FOUND', `no run '${runId}'`);
          throw httpError('CONFLICT', `run '${runId}' is ${record.status}; only an interrupted run can be resumed`);
        }
        const agent = await agents.get(checkpoint.agent);
        if (agent === undefined)
          throw httpError(
            'NOT_FOUND',
            `run '${runId}' belongs to agent '${checkpoint.agent}', which is not served here`,
          );
        return withSlot(async (release) => {
          if (runs.has(runId)) throw httpError('CONFLICT', `run '${runId}' is already running`);
          await claim(runId);
          return answer(
            call,
            runId,
            execute(
              runId,
              agent.name,
              resumeAgent(agent, runId, resume, durableOptions(runId, optionsFor(call))),
              release,
            ),
          );
        });
      },

      async cancel(runId) {
        const local = runs.get(runId);
        if (local === undefined) {
          const record = await traceStore.getRun(runId);
          if (record === undefined) throw httpError('NOT_FOUND', `no run '${runId}'`);
          throw httpError(
            'CONFLICT',
            `run '${runId}' is ${record.status}, not running here; only a running run can be cancelled`,
          );
        }
        local.run.cancel('cancelled by POST /runs/:id/cancel');
        return resultResponse(await local.finished, local, sanitizer, 200);
      },

      async events(_c, runId, after, follow) {
        if (!runs.has(runId) && (await traceStore.getRun(runId)) === undefined)
          throw httpError('NOT_FOUND', `no run '${runId}'`);
        if (follow)
          return followResponse(runLog(runId), {
            after,
            live: () => runIsLive(runId),
            untilDone: false,
            heartbeatMs,
            sanitizer,
          });
        return ndjsonResponse(await eventsNow(runId, after), sanitizer);
      },

      // The record, as this process knows it better: `running` while a segment executes here (a
      // resumed run before its record says so), the end of a run whose final record is not written yet.
      record: hostedRecord,
    };
    return host;
  });
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

/** The record of a run's end, from its result (over the stored record, when there is one). */
function finalRecord(record: RunRecord | undefined, agent: string, result: RunResult): RunRecord {
  const now = new Date().toISOString();
  const {
    error: _error,
    stop_reason: _stop,
    ...base
  } = record ?? { run_id: result.run_id, agent, status: result.status, created_at: now, updated_at: now };
  return {
    ...base,
    status: result.status,
    stop_reason: result.stop_reason,
    ...(result.error !== undefined ? { error: result.error } : {}),
    updated_at: now,
  };
}

/** The system's reason of a storage failure (ENOSPC, EACCES, …); undefined for a corrupt file. */
function systemReason(error: unknown): string | undefined {
  const reason = (error as { details?: { reason?: unknown } } | null)?.details?.reason;
  return typeof reason === 'string' ? reason : undefined;
}
