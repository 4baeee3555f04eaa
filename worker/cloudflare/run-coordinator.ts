/**
 * The run coordinator: one Durable Object per run (named by the run id), with SQLite storage
 * (`new_sqlite_classes` in wrangler.toml). The run executes here, not in the request that started
 * it: the worker forwards start, resume, cancel and event requests (worker/cloudflare/durable-routes.ts) and
 * this object answers them, one at a time per run, which is what makes the resume claim strongly
 * consistent (however many requests, in however many locations, exactly one claims a checkpoint).
 *
 * Internal routes (called by the worker only, through the namespace stub):
 *   POST /start   {run_id, agent, input, role?, owner?, respond, cancel_on_disconnect?}
 *   POST /resume  {run_id, resume, role?, owner?, respond, cancel_on_disconnect?}
 *   POST /fork    {run_id, parent_run_id, agent, node, state, owner?}: a new run paused after `node`
 *   POST /cancel  → the run's result once it stopped (200), 409 when it is not running
 *   GET  /events  ?after= / Last-Event-ID; `Accept: text/event-stream` follows live, else NDJSON
 *   GET  /record  the run record
 *   GET  /stats   storage writes since the object was built ({rows, index_puts}; benchmarks)
 *   POST /delete  forgets the run (retention)
 * `respond` is `async` (202 at once, the run goes on), `json` (the result when the run stops) or
 * `sse` (the segment's events, live). A client leaving an SSE answer cancels the run only when it
 * asked (`cancel_on_disconnect`); otherwise the run goes on and can be followed again.
 *
 * Surviving eviction (docs/execution-model.md "Checkpoints and eviction"): before every node the
 * run saves a node checkpoint in SQLite (`resume_point`), after its earlier events. While a run
 * executes, an alarm is kept set a little ahead. An object that finds, when it is built again (a
 * request or that alarm wakes it), a segment that was executing and did not end (a resume point,
 * no `done` last) continues the run from that checkpoint: the node that was running runs again
 * with the same idempotency key, and side-effecting tool calls whose results were recorded
 * (`tool_results`) are not made again. It does not continue, and records the run failed saying
 * why, when: there is no checkpoint (it died before its first node), the agent is not served any
 * more, the run's max_duration_ms has passed (BUDGET_EXCEEDED; the alarm is set for the deadline
 * too), or it was already continued MAX_RESTARTS times (durable-continue.ts) from the same checkpoint (a node that
 * kills its object would otherwise loop forever).
 */
import type { AgentRun, ResumeInput, RunDurability, RunOptions } from '../../src/graph/run-types.js';
import type { DoneData, StopReason } from '../../src/core/events.js';
import { resumeAgent, runAgent } from '../../src/graph/run-agent.js';
import { continueFromNode } from '../../src/graph/resume-run.js';
import { headOf } from '../../src/graph/checkpoint-codec.js';
import { AgentError } from '../../src/core/agent-error.js';
import { createSanitizer, type Sanitizer } from '../../src/events/outbound.js';
import type { RunOwner, RunRecord, TraceStore } from '../../src/core/trace-store.js';
import type { AgentSource } from '../agent-source.js';
import { DurableRunStore, type SqlStorageLike, type StorageWrites } from '../durable-run-store.js';
import { errorJsonResponse, errorResponse, toErrorResponse } from '../error-status.js';
import { optionsFromVariables, type HostVariables } from '../host-config.js';
import { answerRun, driveRun, resultResponse, type ActiveRun, type RespondMode } from '../run-answer.js';
import { cursorOf, followResponse, ndjsonResponse } from '../run-follow.js';
import { forkRun, type ForkRequest } from '../fork-run.js';
import {
  noCheckpointError,
  recordAfterDone,
  restartsFor,
  whyNotContinue,
  type ResumePoint,
} from '../durable-continue.js';

/** The part of a Durable Object's state (`ctx`) the coordinator uses. */
export interface DurableObjectStateLike {
  blockConcurrencyWhile<T>(work: () => Promise<T>): Promise<T>;
  storage: {
    sql: SqlStorageLike;
    setAlarm(scheduledTime: number): Promise<void> | void;
    deleteAlarm(): Promise<void> | void;
  };
}

interface RunRequest {
  run_id: string;
  role?: string;
  /** The caller (RunOwner): a new run's owner (a resumed run keeps its checkpoint's). */
  owner?: RunOwner;
  respond: RespondMode;
  cancel_on_disconnect?: boolean;
}

/** Default milliseconds between watchdog alarms while a run executes. */
const WATCHDOG_MS = 30_000;
/** How messages name this host. */
const HOST = 'run coordinator';

export interface CoordinatorSetup {
  agents: AgentSource;
  /** The listing index (Workers KV), given every record; optional. */
  index?: TraceStore;
  variables: HostVariables;
  /** Milliseconds a finished run is kept (TRACE_TTL_SECONDS): an alarm then deletes it. */
  retentionMs?: number;
  /** Milliseconds between watchdog alarms while a run executes (default 30 s). */
  watchdogMs?: number;
  /** The seams of issue 13: agent files for sub-runs, the file root of file.read / file.write. */
  seams?: Pick<RunOptions, 'agentFiles' | 'files'>;
  /** Counters of storage writes (the host counts KV puts into it). */
  writes?: StorageWrites;
}

export class RunCoordinatorBase {
  private readonly store: DurableRunStore;
  private readonly runOptions: Partial<RunOptions>;
  private readonly sanitizer: Sanitizer;
  private readonly heartbeatMs: number;
  private active: ActiveRun | undefined;

  constructor(
    private readonly ctx: DurableObjectStateLike,
    private readonly setup: CoordinatorSetup,
  ) {
    this.store = new DurableRunStore(ctx.storage.sql, setup.index, setup.writes);
    const host = optionsFromVariables(setup.variables);
    this.runOptions = {
      ...(host.llm !== undefined ? { llm: host.llm } : {}),
      ...(host.secrets !== undefined ? { secrets: host.secrets } : {}),
      ...setup.seams,
    };
    this.sanitizer = createSanitizer([host.llm?.overrides?.api_key]);
    this.heartbeatMs = host.sseHeartbeatMs ?? 5000;
    // A new instance holds no run in memory: a segment still executing is a run whose object died.
    void ctx.blockConcurrencyWhile(() => this.recover());
  }

  private get watchdogMs(): number {
    return this.setup.watchdogMs ?? WATCHDOG_MS;
  }

  async fetch(request: Request): Promise<Response> {
    try {
      const { pathname } = new URL(request.url);
      if (request.method === 'POST' && pathname === '/start')
        return await this.start(
          (await request.json()) as RunRequest & { agent: string; input: Record<string, unknown> },
        );
      if (request.method === 'POST' && pathname === '/resume')
        return await this.resume((await request.json()) as RunRequest & { resume: ResumeInput });
      if (request.method === 'POST' && pathname === '/fork')
        return await this.fork((await request.json()) as ForkRequest & { agent: string });
      if (request.method === 'POST' && pathname === '/cancel') return await this.cancel();
      if (request.method === 'GET' && pathname === '/events') return this.events(request);
      if (request.method === 'GET' && pathname === '/record') return this.recordResponse();
      if (request.method === 'GET' && pathname === '/stats') return Response.json(this.store.writes);
      if (request.method === 'POST' && pathname === '/delete')
        return await this.forget(new URL(request.url).searchParams.get('run_id') ?? '');
      return errorResponse('NOT_FOUND', `run coordinator: no route ${request.method} ${pathname}`);
    } catch (error) {
      const { body } = toErrorResponse(error);
      return errorJsonResponse(body.error);
    }
  }

  /**
   * The watchdog: re-armed while the run executes (at the run's deadline at the latest); on an
   * object that holds no run in memory, it continues a run whose object died, or applies retention.
   */
  async alarm(): Promise<void> {
    if (this.active !== undefined) {
      await this.armWatchdog();
      return;
    }
    await this.recover();
    const record = this.store.record();
    if (this.active === undefined && record !== undefined && record.status !== 'running')
      await this.expire(record.run_id, Date.parse(record.updated_at));
  }

  private async armWatchdog(): Promise<void> {
    const deadline = this.store.resumePoint()?.checkpoint.deadline_at;
    const next = Date.now() + this.watchdogMs;
    await this.ctx.storage.setAlarm(
      deadline !== undefined && deadline > Date.now() ? Math.min(next, deadline + 1) : next,
    );
  }

  /**
   * Continues the run from its node checkpoint when a segment was executing here when the object
   * died (a resume point left, no `done` last), or records it failed saying why it cannot be
   * (worker/durable-continue.ts).
   */
  private async recover(): Promise<void> {
    if (this.active !== undefined) return;
    const record = this.store.record();
    if (record === undefined) return;
    const point = this.store.resumePoint();
    if (this.segmentEnded(record, point)) {
      // Died between its `done` event and the clean-up: nothing to continue, perhaps a record to finish.
      if (point !== undefined) this.store.endSegment();
      const finished = recordAfterDone(record, this.store.eventsAfter(this.store.lastSeq() - 1)[0]!);
      if (finished !== undefined) await this.store.putRun(finished);
      return;
    }
    if (point === undefined) {
      if (record.status === 'running') await this.closeOrphan(noCheckpointError(record.run_id, HOST));
      return;
    }
    const agent = await this.setup.agents.get(point.checkpoint.agent);
    const refused = whyNotContinue(point, agent, Date.now(), HOST);
    if (refused !== undefined) {
      await this.closeOrphan(refused.error, refused.stopReason);
      return;
    }
    if (this.active !== undefined) return;
    this.store.countRestart();
    const counted = { ...point, restarts: point.restarts + 1 };
    const run = continueFromNode(
      agent!,
      point.checkpoint,
      this.store.lastSeq(),
      this.optionsFor(point.role !== undefined ? { role: point.role } : {}, counted),
    );
    this.execute(run);
  }

  /**
   * True when the last event is the `done` of the segment that was executing: after its node
   * checkpoint (a resumed segment's first checkpoint comes after the `done` of the pause it
   * continues, which is not its end), or, with no checkpoint, not a pause's `done` under a record
   * a resume had set running (that segment died before its first checkpoint).
   */
  private segmentEnded(record: RunRecord, point: ResumePoint | undefined): boolean {
    if (this.store.lastEventType() !== 'done') return false;
    const last = this.store.eventsAfter(this.store.lastSeq() - 1)[0];
    if (last === undefined) return false;
    if (point !== undefined) return last.seq > point.checkpoint.seq;
    return !(record.status === 'running' && (last.data as DoneData).status === 'interrupted');
  }

  /** Records a run whose object died, and that cannot be continued, as failed with a `done` event saying why. */
  private async closeOrphan(reason: AgentError, stopReason: StopReason = 'error'): Promise<void> {
    const record = this.store.record();
    if (this.active !== undefined || record === undefined) return;
    const error = reason.toJSON();
    const seq = this.store.lastSeq() + 1;
    this.store.append([
      {
        type: 'done',
        run_id: record.run_id,
        seq,
        ts: new Date().toISOString(),
        data: { status: 'failed', stop_reason: stopReason, state: {}, error },
      },
    ]);
    this.store.endSegment();
    await this.store.putRun({
      ...record,
      status: 'failed',
      stop_reason: stopReason,
      error,
      updated_at: new Date().toISOString(),
      event_count: seq,
    });
    await this.expire(record.run_id, Date.now());
  }

  /** Retention: deletes a stopped run once it is older than `retentionMs`, else sets the alarm for then. */
  private async expire(runId: string, updatedAt: number): Promise<void> {
    const keep = this.setup.retentionMs;
    if (keep === undefined) return;
    if (Date.now() >= updatedAt + keep) await this.store.deleteRun(runId);
    else await this.ctx.storage.setAlarm(updatedAt + keep);
  }

  private async start(body: RunRequest & { agent: string; input: Record<string, unknown> }): Promise<Response> {
    if (this.active !== undefined || this.store.record() !== undefined)
      throw new AgentError('CONFLICT', `run '${body.run_id}' already exists`);
    const agent = await this.setup.agents.get(body.agent);
    if (agent === undefined) throw new AgentError('NOT_FOUND', `no agent '${body.agent}'`);
    const run = runAgent(agent, body.input, { ...this.optionsFor(body), runId: body.run_id });
    return this.answer(this.execute(run), body, 0);
  }

  /** Time travel: this object's run becomes a new run paused after `node` of its parent (fork-run.ts). */
  private async fork(body: ForkRequest & { agent: string }): Promise<Response> {
    if (this.active !== undefined || this.store.record() !== undefined)
      throw new AgentError('CONFLICT', `run '${body.run_id}' already exists`);
    const agent = await this.setup.agents.get(body.agent);
    if (agent === undefined)
      throw new AgentError(
        'NOT_FOUND',
        `run '${body.parent_run_id}' belongs to agent '${body.agent}', which is not served here`,
      );
    await forkRun(agent, { traceStore: this.store, checkpointStore: this.store }, body);
    return Response.json({ run_id: body.run_id, parent_run_id: body.parent_run_id, node: body.node }, { status: 201 });
  }

  private async resume(body: RunRequest & { resume: ResumeInput }): Promise<Response> {
    // Two resumes reaching this object: the first makes the run active, the second is refused here;
    // the checkpoint claim (one SQLite row) refuses any later one for the same checkpoint.
    if (this.active !== undefined) throw new AgentError('CONFLICT', `run '${body.run_id}' is already running`);
    const checkpoint = await this.store.loadLatest(body.run_id);
    if (checkpoint === undefined) {
      const record = this.store.record();
      if (record === undefined) throw new AgentError('NOT_FOUND', `no run '${body.run_id}'`);
      throw new AgentError(
        'CONFLICT',
        `run '${body.run_id}' is ${record.status}; only an interrupted run can be resumed`,
      );
    }
    const agent = await this.setup.agents.get(checkpoint.agent);
    if (agent === undefined)
      throw new AgentError(
        'NOT_FOUND',
        `run '${body.run_id}' belongs to agent '${checkpoint.agent}', which is not served here`,
      );
    if (this.active !== undefined) throw new AgentError('CONFLICT', `run '${body.run_id}' is already running`);
    const after = this.store.lastSeq();
    const run = resumeAgent(agent, body.run_id, body.resume, this.optionsFor(body));
    return this.answer(this.execute(run), body, after);
  }

  /** The run options of a segment executing here; `continuedFrom`: the point a dead object's run is continued from. */
  private optionsFor(body: { role?: string; owner?: RunOwner }, continuedFrom?: ResumePoint): RunOptions {
    const store = this.store;
    const durability: RunDurability = {
      saveProgress: (write) => store.saveResumePoint(write, body.role, restartsFor(headOf(write), continuedFrom)),
      recordedResult: (key) => store.recordedResult(key),
      recordResult: (key, value) => store.recordResult(key, value),
    };
    return {
      ...this.runOptions,
      traceStore: store,
      checkpointStore: store,
      durability,
      ...(body.role !== undefined ? { role: body.role } : {}),
      ...(body.owner !== undefined ? { owner: body.owner } : {}),
    };
  }

  /** Runs to the end inside this object, writing each event as it comes. */
  private execute(run: AgentRun): ActiveRun {
    const active = driveRun(run, (event) => this.store.append([event]));
    active.finished = active.finished.finally(() => {
      if (this.active === active) this.active = undefined;
      // The segment ended: nothing to continue after a restart.
      this.store.endSegment();
      this.store.wake();
      // The watchdog's alarm becomes the retention alarm (or goes).
      const retention = this.setup.retentionMs;
      const next =
        retention === undefined ? this.ctx.storage.deleteAlarm() : this.ctx.storage.setAlarm(Date.now() + retention);
      void Promise.resolve(next).catch(() => undefined);
    });
    this.active = active;
    void this.armWatchdog().catch(() => undefined);
    return active;
  }

  private answer(active: ActiveRun, body: RunRequest, after: number): Promise<Response> {
    const follow = () =>
      followResponse(this.store, {
        after,
        live: () => this.active === active,
        untilDone: true,
        heartbeatMs: this.heartbeatMs,
        sanitizer: this.sanitizer,
        ...(body.cancel_on_disconnect === true
          ? { onDisconnect: () => active.run.cancel('the client disconnected') }
          : {}),
      });
    return answerRun(active, { mode: body.respond, runId: body.run_id, sanitizer: this.sanitizer, follow });
  }

  private async cancel(): Promise<Response> {
    const active = this.active;
    if (active === undefined) {
      const record = this.store.record();
      if (record === undefined) throw new AgentError('NOT_FOUND', 'no such run');
      throw new AgentError(
        'CONFLICT',
        `run '${record.run_id}' is ${record.status}, not running; only a running run can be cancelled`,
      );
    }
    active.run.cancel('cancelled by POST /runs/:id/cancel');
    return resultResponse(await active.finished, active, this.sanitizer, 200);
  }

  private events(request: Request): Response {
    const after = cursorOf(request);
    if (this.store.record() === undefined && this.active === undefined)
      return errorResponse('NOT_FOUND', 'no such run');
    if ((request.headers.get('accept') ?? '').includes('text/event-stream')) {
      return followResponse(this.store, {
        after,
        live: () => this.active !== undefined,
        untilDone: false,
        heartbeatMs: this.heartbeatMs,
        sanitizer: this.sanitizer,
      });
    }
    return ndjsonResponse(this.store.allAfter(after), this.sanitizer);
  }

  private recordResponse(): Response {
    const record = this.store.record();
    if (record === undefined) return errorResponse('NOT_FOUND', 'no such run');
    return Response.json(record);
  }

  private async forget(runId: string): Promise<Response> {
    if (this.active !== undefined) throw new AgentError('CONFLICT', `run '${runId}' is running; cancel it first`);
    await this.store.deleteRun(runId);
    return new Response(null, { status: 204 });
  }
}
