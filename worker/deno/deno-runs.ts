/**
 * Durable runs on Deno (worker/deno/deno.ts): the contract of the run coordinator on Cloudflare
 * (worker/cloudflare/run-coordinator.ts) with what Deno offers, for any number of Deno processes sharing one
 * Deno KV database. Deno KV keys under the prefix (beside the trace store's, deno-kv-trace-store.ts):
 *
 *   ['owner', run_id]            the lease: which process executes the run (deno-run-lease.ts)
 *   ['start', run_id]            what the run was started with (agent, input, role), to start it
 *                                again if it died before its first node
 *   ['progress', run_id]         the node checkpoint saved before each node (RunDurability)
 *   ['tool', run_id, key]        recorded results of side-effecting tool calls, by idempotency key
 *   ['cancel', run_id]           a cancel asked in a process that does not execute the run
 *   ['ev', run_id, seq, piece]   every event, written as it is emitted (deno-run-log.ts)
 *
 * Background runs go through the Deno KV queue (`kv.enqueue` / `kv.listenQueue`); the handler
 * keeps the message until the run stops, which on Deno Deploy keeps the isolate alive. Every
 * second (or third of a lease, if shorter) each process renews its leases, cancels its runs that
 * have a cancel key, and takes over runs whose lease expired (a process that died) or was handed
 * over (a process that stopped), from their last node checkpoint: the node that was running runs
 * again, no node finished before it does. The same sweep runs at start-up.
 */
import { AgentError, toAgentError, type AgentErrorJson } from '../../src/core/agent-error.js';
import type { CompiledAgent } from '../../src/graph/compiled-agent.js';
import { runAgent } from '../../src/graph/run-agent.js';
import { checkStateUpdate, continueFromNode, findResumable, resumeAgent } from '../../src/graph/resume-run.js';
import type { AgentRun, ResumeInput, RunOptions, RunResult } from '../../src/graph/run-types.js';
import type { AgentEvent, DoneData, StopReason } from '../../src/core/events.js';
import type { CheckpointStore, RunRecord, TraceStore } from '../../src/core/trace-store.js';
import type { DenoKvKey, DenoKvLike } from '../../adapters/deno-kv/deno-kv-like.js';
import { commit, guard, listKeys } from '../../adapters/deno-kv/deno-kv-texts.js';
import type { AgentSource } from '../agent-source.js';
import { noCheckpointError, recordAfterDone, whyNotContinue, type ResumePoint } from '../durable-continue.js';
import { DenoRunLeases, type Lease, type LeaseEntry } from './deno-run-lease.js';
import { DenoRunLog, type EventWriter } from './deno-run-log.js';
import { segmentOptions } from './deno-run-options.js';
import { DenoRunState, type RunCaller, type StartInfo } from './deno-run-state.js';
import { driveRun, type ActiveRun } from '../run-answer.js';

/** The queue half of `Deno.Kv` (typed here: the build has no Deno types). */
export interface DenoKvQueueLike extends DenoKvLike {
  enqueue(value: unknown, options?: { delay?: number }): Promise<{ ok: boolean }>;
  listenQueue(handler: (message: unknown) => Promise<void> | void): Promise<void>;
}

export interface DenoRunsSetup {
  kv: DenoKvQueueLike;
  agents: AgentSource;
  /** The app's Deno KV stores (records, listing, pause checkpoints). */
  traceStore: TraceStore;
  checkpointStore: CheckpointStore;
  /** The host's run options (model overrides, secrets, limits); every run gets them. */
  runOptions?: Partial<RunOptions>;
  prefix?: DenoKvKey;
  maxValueBytes?: number;
  expireInMs?: number;
  /** Milliseconds a lease lasts without renewal (default 15 s): how soon a dead process's runs go on. */
  leaseMs?: number;
  /**
   * Whether sweeps look for runs to take over (default true). Off, only the queue's watchdog
   * messages continue the runs of a process that died (what the tests of that path turn off).
   */
  scan?: boolean;
  /** Milliseconds between a follower's looks at a run executing in another process (default 250). */
  pollMs?: number;
}

/** A run executing in this process. */
export interface HostedRun extends ActiveRun {
  runId: string;
  lease: Lease;
  writer: EventWriter;
  /** When the lease is renewed next (epoch ms), and the renewal under way. */
  renewAt: number;
  renewal: Promise<void>;
  /** Another process took the run over (this one missed renewing its lease): stop, write nothing. */
  lost: boolean;
}

export class DenoRuns {
  readonly process = crypto.randomUUID();
  readonly log: DenoRunLog;
  readonly leases: DenoRunLeases;
  readonly leaseMs: number;
  private readonly local = new Map<string, HostedRun>();
  /**
   * Runs this process is taking over (lease claimed, not yet executing): a later sweep or queue
   * message must not take one again. Under load the steps between the lease and `local` can
   * outlast the lease itself; the run was then taken over a second time by this very process and
   * continued twice (its `log` "continued" event twice: the deno-durable restart test's finding).
   */
  private readonly taking = new Set<string>();
  private readonly state: DenoRunState;
  private sweeping = false;
  private readonly scan: boolean;

  constructor(private readonly setup: DenoRunsSetup) {
    const prefix = setup.prefix ?? ['tea'];
    const maxValueBytes = setup.maxValueBytes ?? 60_000;
    this.leaseMs = setup.leaseMs ?? 15_000;
    this.scan = setup.scan ?? true;
    this.log = new DenoRunLog(setup.kv, {
      prefix,
      maxValueBytes,
      expireIn: setup.expireInMs,
      pollMs: setup.pollMs ?? 250,
    });
    this.leases = new DenoRunLeases(setup.kv, prefix, this.process, this.leaseMs);
    this.state = new DenoRunState(setup.kv, prefix, maxValueBytes, setup.expireInMs);
  }

  /** The run executing here, if it is. */
  hosted(runId: string): HostedRun | undefined {
    return this.local.get(runId);
  }

  /** True while some process holds (or the queue has) the run. */
  async running(runId: string): Promise<boolean> {
    return this.local.has(runId) || (await this.leases.read(runId)) !== undefined;
  }

  /** The record of a run queued and not started yet (the engine writes the real one when it starts). */
  async queuedRecord(runId: string): Promise<RunRecord | undefined> {
    const lease = await this.leases.read(runId);
    if (lease === undefined) return undefined;
    const start = await this.state.start(runId);
    const now = new Date().toISOString();
    return {
      run_id: runId,
      agent: start?.agent ?? 'unknown',
      status: 'running',
      created_at: now,
      updated_at: now,
      event_count: 0,
    };
  }

  /** Starts a run in this process now (a foreground request). */
  async startHere(agent: CompiledAgent, input: Record<string, unknown>, caller: RunCaller): Promise<HostedRun> {
    const runId = crypto.randomUUID();
    const start: StartInfo = { agent: agent.name, input, ...caller, segment: 'start' };
    const lease = await this.leases.takeFree(runId, (atomic) => this.state.setStart(atomic, runId, start));
    if (lease === undefined) throw new AgentError('CONFLICT', `run '${runId}' already exists`);
    return this.execute(runId, lease, 0, caller, (options) => runAgent(agent, input, { ...options, runId }));
  }

  /** Queues a run for the background (`kv.enqueue`); a listener in this or another process runs it. */
  async startInBackground(agent: CompiledAgent, input: Record<string, unknown>, caller: RunCaller): Promise<string> {
    const runId = crypto.randomUUID();
    const start: StartInfo = { agent: agent.name, input, ...caller, segment: 'start' };
    // If the queue never delivers (the process died first), the sweep takes the run after the grace.
    const lease = await this.leases.takeFree(
      runId,
      (atomic) => this.state.setStart(atomic, runId, start),
      this.leases.queued(this.leaseMs * 2),
    );
    if (lease === undefined) throw new AgentError('CONFLICT', `run '${runId}' already exists`);
    try {
      await guard('enqueue', () => this.setup.kv.enqueue({ tea_run: runId }));
    } catch (error) {
      // Refused to the client, so it must not run later either: the lease and start go again.
      await this.leases.release(lease, [this.state.key('start', runId)]).catch(() => undefined);
      throw error;
    }
    return runId;
  }

  /** Resumes a paused run here: exactly one of any number of concurrent resumes takes the lease. */
  async resume(runId: string, resume: ResumeInput, caller: RunCaller): Promise<{ hosted: HostedRun; after: number }> {
    const conflict = () => new AgentError('CONFLICT', `run '${runId}' is already running`);
    if (this.local.has(runId)) throw conflict();
    // With `checkpoint_id`, a request slower than another resume of the same pause is refused
    // here, not let to resume the run's next pause (ResumeInput.checkpoint_id).
    const checkpoint = await findResumable(runId, this.setup, resume.checkpoint_id);
    const agent = await this.setup.agents.get(checkpoint.agent);
    if (agent === undefined)
      throw new AgentError(
        'NOT_FOUND',
        `run '${runId}' belongs to agent '${checkpoint.agent}', which is not served here`,
      );
    checkStateUpdate(agent, checkpoint, resume);
    const started = await this.state.start(runId);
    const start: StartInfo = { agent: agent.name, input: started?.input ?? {}, ...caller, segment: 'resume' };
    // The lease and the claim of this pause in one commit: exactly one resume per pause.
    const lease = await this.leases.takeFree(runId, (atomic) => {
      this.state.setStart(atomic, runId, start);
      this.state.claimPause(atomic, runId, checkpoint.checkpoint_id);
    });
    if (lease === undefined) throw conflict();
    // A resume that read this pause before another resume took it, ran and let go: not this pause any more.
    const latest = await this.setup.checkpointStore.loadLatest(runId);
    if (latest?.checkpoint_id !== checkpoint.checkpoint_id) {
      await this.leases.release(lease);
      throw new AgentError('CONFLICT', `run '${runId}' was resumed by another request`);
    }
    const after = await this.log.lastSeq(runId);
    return {
      hosted: this.execute(runId, lease, after, caller, (options) => resumeAgent(agent, runId, resume, options)),
      after,
    };
  }

  /**
   * Cancels a run wherever it executes: here at once; in another process through a cancel key it
   * sees at its next renewal, waiting (up to two leases) for it to stop. Answers the run's result.
   */
  async cancel(runId: string, reason: string): Promise<{ hosted?: HostedRun; result: RunResult }> {
    const hosted = this.local.get(runId);
    if (hosted !== undefined) {
      hosted.run.cancel(reason);
      return { hosted, result: await hosted.finished };
    }
    // The key is written only while the lease read is still there (its release deletes the key in
    // the same commit), so a cancel never outlives the segment it was meant for.
    for (let marked = false; !marked; ) {
      const lease = await this.leases.read(runId);
      if (lease === undefined) {
        const record = await this.setup.traceStore.getRun(runId);
        if (record === undefined) throw new AgentError('NOT_FOUND', `no run '${runId}'`);
        throw new AgentError(
          'CONFLICT',
          `run '${runId}' is ${record.status}, not running; only a running run can be cancelled`,
        );
      }
      marked = await commit(
        this.setup.kv
          .atomic()
          .check({ key: this.leases.key(runId), versionstamp: lease.versionstamp })
          .set(this.state.key('cancel', runId), reason),
      );
    }
    for (const deadline = Date.now() + this.leaseMs * 2 + 5000; Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      if ((await this.leases.read(runId)) === undefined) break;
    }
    const done = (await this.log.eventsAfter(runId, 0)).filter((event) => event.type === 'done').at(-1) as
      | AgentEvent<'done'>
      | undefined;
    // (the `done` event is never cut down by the trace cap)
    if (done === undefined || (await this.leases.read(runId)) !== undefined)
      throw new AgentError(
        'TIMEOUT',
        `run '${runId}' did not stop within ${this.leaseMs * 2 + 5000} ms of being cancelled`,
      );
    const { status, stop_reason: stopReason, state, error } = done.data as DoneData;
    return {
      result: {
        run_id: runId,
        status,
        stop_reason: stopReason,
        state,
        ...(error !== undefined ? { error: error as AgentErrorJson } : {}),
      },
    };
  }

  /**
   * The queue's handler. `{tea_run}`: runs a queued run (or one whose process died) and holds the
   * message until it stops. `{tea_run, watch: true}`: the watchdog every executing run keeps in the
   * queue, delayed by two leases (the Deno KV counterpart of the run coordinator's alarm): while
   * some process holds the run it is queued again; once the lease expired it continues the run.
   * On Deno Deploy the queue wakes an isolate for it, where no timer of a stopped one would fire.
   */
  async onQueueMessage(message: unknown): Promise<void> {
    const { tea_run: runId, watch } = (message ?? {}) as { tea_run?: unknown; watch?: unknown };
    if (typeof runId !== 'string') return;
    const here = this.local.get(runId);
    if (here !== undefined) {
      await (watch === true ? this.watch(runId) : here.finished);
      return;
    }
    const entry = await this.leases.read(runId);
    if (entry === undefined) return; // the run stopped
    if (entry.value.process !== null && entry.value.until > Date.now()) {
      // Held by a live process, which runs it; the watchdog goes on watching.
      if (watch === true) await this.watch(runId);
      return;
    }
    await (await this.takeOver(entry))?.finished;
  }

  /** Queues the run's watchdog message, due in two leases. */
  private async watch(runId: string): Promise<void> {
    await guard('enqueue', () => this.setup.kv.enqueue({ tea_run: runId, watch: true }, { delay: this.leaseMs * 2 }));
  }

  /** Milliseconds between sweeps: a third of a lease, at most a second (a hand-over is taken up that soon). */
  get sweepMs(): number {
    return Math.max(50, Math.min(1000, Math.floor(this.leaseMs / 3)));
  }

  /**
   * One round of lease upkeep (every `sweepMs`, and at start-up): renews this process's leases
   * that are a third through, cancels its runs that have a cancel key, and takes over runs whose
   * lease expired or was handed over.
   */
  async sweep(): Promise<void> {
    if (this.sweeping) return;
    this.sweeping = true;
    try {
      for (const hosted of [...this.local.values()]) {
        if (this.local.get(hosted.runId) !== hosted || Date.now() < hosted.renewAt) continue;
        hosted.renewal = this.leases.renew(hosted.lease).then(
          (renewed) =>
            renewed === undefined
              ? this.lose(hosted)
              : void ([hosted.lease, hosted.renewAt] = [renewed, Date.now() + this.leaseMs / 3]),
          () => undefined, // Deno KV failing: tried again next sweep, while the lease lasts
        );
        await hosted.renewal;
      }
      for (const key of await listKeys(this.setup.kv, this.state.keysOf('cancel'))) {
        const runId = String(key[key.length - 1]);
        const reason = (await this.setup.kv.get<string>(key)).value ?? 'cancelled';
        this.local.get(runId)?.run.cancel(reason);
      }
      const now = Date.now();
      if (!this.scan) return;
      for (const entry of await this.leases.all()) {
        if (entry.value.until < now && !this.local.has(entry.runId)) void this.takeOver(entry);
      }
    } finally {
      this.sweeping = false;
    }
  }

  /**
   * Before this process stops (SIGTERM, SIGINT): stops writing for its runs and marks their leases
   * abandoned, so that another process (or this one restarted) continues them from their last node
   * checkpoint at its next sweep instead of after a whole lease.
   */
  async handOver(): Promise<void> {
    await Promise.all(
      [...this.local.values()].map(async (hosted) => {
        hosted.lost = true;
        hosted.writer.fenced = true;
        await hosted.writer.drain().catch(() => undefined);
        await this.leases.expire(hosted.lease).catch(() => false);
        hosted.run.cancel('the process is stopping; another process continues the run');
      }),
    );
  }

  /** Takes over a run whose lease expired (or a queued one) and continues it from where it stands. */
  private async takeOver(entry: LeaseEntry): Promise<HostedRun | undefined> {
    const { runId } = entry;
    if (this.taking.has(runId) || this.local.has(runId)) return undefined;
    this.taking.add(runId);
    try {
      return await this.continueTaken(entry, Date.now());
    } finally {
      this.taking.delete(runId);
    }
  }

  /** takeOver's work once no other take-over of the run is under way here (`claimedAt`: before the lease commit). */
  private async continueTaken(entry: LeaseEntry, claimedAt: number): Promise<HostedRun | undefined> {
    const lease = await this.leases.takeOver(entry);
    if (lease === undefined) return undefined;
    const { runId } = entry;
    const record = await this.setup.traceStore.getRun(runId);
    // Stopped before its process could let go: only the lease is left to clear.
    if (record !== undefined && record.status !== 'running') {
      await this.finish(runId, lease, record.status);
      return undefined;
    }
    const start = await this.state.start(runId);
    const progress = await this.state.progress(runId);
    const lastSeq = await this.log.lastSeq(runId);
    const last = lastSeq > 0 ? (await this.log.eventsAfter(runId, lastSeq - 1))[0] : undefined;
    // Died after the segment's `done` was stored, before its final record: the record says so now.
    // (A `done` older than the node checkpoint, or than a claimed resume, ended an earlier segment.)
    const ended =
      last?.type === 'done' &&
      (progress !== undefined ? progress.checkpoint.seq < last.seq : start?.segment !== 'resume');
    if (record !== undefined && ended) {
      const final = recordAfterDone(record, last);
      if (final !== undefined) await this.setup.traceStore.putRun(final);
      await this.finish(runId, lease, final?.status ?? record.status);
      return undefined;
    }
    const agent = start === undefined ? undefined : await this.setup.agents.get(start.agent);
    if (start === undefined || agent === undefined) {
      const missing =
        start === undefined ? 'what it was started with is not stored' : `agent '${start.agent}' is not served here`;
      await this.closeAsFailed(
        runId,
        lease,
        record,
        new AgentError('NOT_FOUND', `run '${runId}' stopped with its process and cannot be continued: ${missing}`),
      );
      return undefined;
    }
    if (progress !== undefined) {
      const { checkpoint, restarts } = progress;
      const refused = whyNotContinue({ checkpoint, restarts, role: start.role }, agent, Date.now(), 'process');
      if (refused !== undefined) {
        await this.closeAsFailed(runId, lease, record, refused.error, refused.stopReason);
        return undefined;
      }
      // A run handed over by a process that stopped on purpose is not counted as a death.
      const point: ResumePoint = {
        checkpoint,
        restarts: entry.value.handedOver === true ? restarts : restarts + 1,
        role: start.role,
      };
      await this.state.saveProgress(runId, { checkpoint, restarts: point.restarts });
      return this.execute(
        runId,
        lease,
        lastSeq,
        start,
        (options) => continueFromNode(agent, checkpoint, lastSeq, options),
        point,
        claimedAt,
      );
    }
    if (start.segment === 'resume') {
      await this.closeAsFailed(runId, lease, record, noCheckpointError(runId, 'process'));
      return undefined;
    }
    // Queued and never started, or died before its first node: started again from its input.
    return this.execute(
      runId,
      lease,
      0,
      start,
      (options) => runAgent(agent, start.input, { ...options, runId }),
      undefined,
      claimedAt,
    );
  }

  /** Runs `begin`'s run here under `lease`; `continuedFrom`: the node checkpoint it goes on from after a death. */
  private execute(
    runId: string,
    lease: Lease,
    lastSeq: number,
    caller: RunCaller,
    begin: (options: RunOptions) => AgentRun,
    continuedFrom?: ResumePoint,
    leasedAt = Date.now(),
  ): HostedRun {
    const writer = this.log.writer(runId, lastSeq);
    const run = begin(
      segmentOptions({ ...this.setup, log: this.log, state: this.state }, runId, writer, caller, continuedFrom),
    );
    const hosted: HostedRun = Object.assign(
      driveRun(run, (event) => void writer.write([event]).catch(() => undefined)),
      // Renewed a third through the lease counted from when it was taken, not from now.
      { runId, lease, writer, lost: false, renewAt: leasedAt + this.leaseMs / 3, renewal: Promise.resolve() },
    );
    hosted.finished = hosted.finished.then(async (result) => {
      if (this.local.get(runId) === hosted) this.local.delete(runId);
      // A renewal under way changes the lease's versionstamp: released after it, with the new one.
      await hosted.renewal;
      if (!hosted.lost)
        await this.finish(runId, hosted.lease, result.status).catch((error) =>
          console.error(`run ${runId}: ${toAgentError(error).message}`),
        );
      this.log.wake(runId);
      return result;
    });
    this.local.set(runId, hosted);
    void this.watch(runId).catch(() => undefined); // the sweep still covers a run without one
    return hosted;
  }

  /** This process missed renewing a lease and another took the run: stop it, writing nothing more. */
  private lose(hosted: HostedRun): void {
    hosted.lost = true;
    hosted.writer.fenced = true;
    hosted.run.cancel(`run '${hosted.runId}' was taken over by another process (its lease here expired)`);
  }

  /** Clears what a stopped segment no longer needs, then lets go of its lease (a pause keeps its start). */
  private async finish(runId: string, lease: Lease, status: RunRecord['status']): Promise<void> {
    // Cleared before the lease goes: a run taken over later finds its record stopped and only lets go.
    await this.state.clearSegment(runId, status === 'interrupted');
    await this.leases.release(lease, [this.state.key('cancel', runId)]);
  }

  /** Records a run that cannot go on as failed (its `done` event and record), then lets go of it. */
  private async closeAsFailed(
    runId: string,
    lease: Lease,
    record: RunRecord | undefined,
    reason: AgentError,
    stopReason: StopReason = 'error',
  ): Promise<void> {
    const error = reason.toJSON();
    const seq = (await this.log.lastSeq(runId)) + 1;
    const now = new Date().toISOString();
    const done = {
      type: 'done',
      run_id: runId,
      seq,
      ts: now,
      data: { status: 'failed', stop_reason: stopReason, state: {}, error },
    } as AgentEvent;
    await this.log.writer(runId, seq - 1).write([done]);
    const start = await this.state.start(runId);
    await this.setup.traceStore.putRun({
      run_id: runId,
      agent: record?.agent ?? start?.agent ?? 'unknown',
      status: 'failed',
      stop_reason: stopReason,
      created_at: record?.created_at ?? now,
      updated_at: now,
      error,
      event_count: seq,
    });
    await this.finish(runId, lease, 'failed');
  }
}
