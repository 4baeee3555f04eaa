/**
 * One run of a compiled agent: the graph loop (see docs/execution-model.md).
 *
 *   state ← initial_state ⊕ input
 *   node ← entry
 *   while node ≠ __end__:
 *     budget.step(); interrupt_before? → checkpoint, stop
 *     update ← execute(node) with on_error; a PauseRequest → checkpoint, stop
 *     state ← state ⊕ update
 *     interrupt_after? → checkpoint, stop
 *     node ← route(node, state)        (goto > edges > list order; parallel fan-out runs branches)
 *   done
 *
 * The session holds the loop and what the run shares; its other jobs are in their own modules:
 * events (run-events.ts), the trace and the storage-failure policy (trace-writer.ts),
 * checkpoints (run-checkpoint.ts), a node visit with on_error (run-node.ts), cancellation and the
 * deadline (run-control.ts), outcomes (run-outcome.ts), model settings and secrets
 * (run-model.ts), the starting state (run-input.ts). Resuming is resume-run.ts.
 */
import { isPauseRequest } from '../actions/pause-request.js';
import type { FileStore } from '../core/file-store.js';
import type { PauseRequest, ResumeInfo, State, SubRunResult } from '../core/action.js';
import { AgentError, toAgentError } from '../core/agent-error.js';
import type { AgentEvent, EventData, EventType, SubRunFrame } from '../core/events.js';
import { createSanitizer, type Sanitizer } from '../events/outbound.js';
import { createModelCaller, type ModelCaller } from '../llm/model-caller.js';
import type { LlmResponse } from '../core/model-provider.js';
import type { PendingInterrupt, RunLineage, RunOwner, RunRecord } from '../core/trace-store.js';
import { hostYield } from './host-yield.js';
import { freezeJson } from '../util/frozen-json.js';
import { mergeShallow } from '../util/safe-json.js';
import type { CompiledAgent, CompiledNode } from './compiled-agent.js';
import type { EventChannel } from './event-channel.js';
import type { BodyHost } from './execute-body.js';
import { nextNode } from './route.js';
import { resolveLimits, RunBudget, type BudgetUsage } from './run-budget.js';
import { writeBudgetedFiles } from './write-budgeted-files.js';
import { Checkpointer, makeCheckpoint } from './run-checkpoint.js';
import { RunControl } from './run-control.js';
import { capRunError } from './run-error.js';
import { RunEvents } from './run-events.js';
import { initialState } from './run-input.js';
import { setUpModel } from './run-model.js';
import { executeBody } from './execute-body.js';
import { runNode } from './run-node.js';
import { doneData, failureOutcome, stopReasonOf, type Outcome } from './run-outcome.js';
import { TEMPLATE_CLOCK, type TemplateScope } from '../templates/types.js';
import { runParallel } from './run-parallel.js';
import type { NodeCheckpoint, RunOptions, RunResult } from './run-types.js';
import { TraceWriter } from './trace-writer.js';
import { noAgentSource } from './agent-files.js';
import { loadSubAgent, resolveSubRunFile, subRunFailure, type SubRunLink } from './sub-run.js';
import { DurableVisits } from './durable-visits.js';
import { END } from '../spec/agent-spec.js';

/** The `env` of a run whose host passed none (frozen: templates only read it). */
const EMPTY_ENV: Readonly<Record<string, string>> = Object.freeze({});

export interface StartPoint {
  node: string;
  /** Skip the interrupt_before check of the first node (resuming a before-interrupt). */
  skipInterruptBefore: boolean;
  resume?: ResumeInfo;
}

/** What a resumed run carries over from its checkpoint. */
export interface RestoredRun {
  runId: string;
  seq: number;
  usage: BudgetUsage;
  memory: Record<string, unknown>;
  createdAt?: string;
  scriptedCalls?: Record<string, number>;
  /** When the duration budget started (a run continued after its host died). */
  budgetStartedAt?: number;
  /** The run it was started from (time travel), kept on its records and later checkpoints. */
  lineage?: RunLineage;
  /** Who started the run: kept, whoever resumes it. */
  owner?: RunOwner;
}

export class RunSession implements BodyHost {
  readonly runId: string;
  readonly memory: Map<string, unknown>;
  readonly role: string | undefined;
  readonly traceStore;
  readonly luaInstructions: number | undefined;
  private readonly scriptedCalls: Map<string, number>;
  private readonly control: RunControl;
  private readonly budget: RunBudget;
  /** The host's file root with writes charged to the budget (made on first use). */
  private budgetedFiles: FileStore | undefined;
  private readonly events: RunEvents;
  private readonly trace: TraceWriter;
  private readonly checkpoints: Checkpointer;
  private readonly modelCaller: ModelCaller;
  private readonly sanitizer: Sanitizer;
  private readonly createdAt: string;
  private readonly lineage: RunLineage | undefined;
  /** Who started the run (RunOptions.owner, or the checkpoint's on a resume). */
  private readonly owner: RunOwner | undefined;
  private readonly scope: {
    variables: unknown;
    settings: unknown;
    secrets: Record<string, string>;
    env?: Record<string, string>;
  };
  /** A failure found while building the session, reported when the run starts. */
  private readonly setupError: AgentError | undefined;
  /** The node whose action is calling the model (for the model caller's events). */
  private currentNode: string | undefined;
  /** Idempotency keys, recorded tool results and node checkpoints (durable hosts). */
  private readonly durable: DurableVisits;
  /** Registered by actions (ActionContext.onRunEnd), run once when this run or sub-run ends. */
  private readonly endHooks: Array<() => Promise<void>> = [];
  /** The models this segment's calls went to (kept on the run record; a resume adds the record's). */
  private readonly models = new Set<string>();
  /** A resumed or continued run: its record already lists the models of the earlier segments. */
  private readonly restored: boolean;
  private earlierModels: Promise<string[]> | undefined;
  state: State = {};

  constructor(
    readonly agent: CompiledAgent,
    private readonly options: RunOptions,
    restored?: RestoredRun,
    /** Set for a sub-run (an agent file run by agent.*): what it shares with its parent (sub-run.ts). */
    private readonly parent?: SubRunLink,
  ) {
    this.runId = restored?.runId ?? options.runId ?? crypto.randomUUID();
    this.breathe = options.breathe ?? hostYield();
    this.memory = new Map(Object.entries(restored?.memory ?? {}));
    this.scriptedCalls = new Map(Object.entries(restored?.scriptedCalls ?? {}));
    this.role = options.role;
    this.traceStore = options.traceStore;
    this.createdAt = restored?.createdAt ?? new Date(this.now()).toISOString();
    this.restored = restored !== undefined;
    this.lineage = restored?.lineage;
    this.owner = restored?.owner ?? options.owner;
    this.scope = {
      variables: agent.spec.variables,
      settings: agent.spec.settings,
      secrets: options.secrets ?? {},
      ...(options.env !== undefined ? { env: options.env } : {}),
    };
    this.budget =
      parent?.budget ??
      new RunBudget(
        resolveLimits(agent.spec.limits, options.limits, options.limitOverrides),
        restored?.usage,
        () => this.now(),
        restored?.budgetStartedAt,
      );
    this.luaInstructions = agent.spec.settings.lua?.instructions;
    // A sub-run listens to its parent's signal: a cancel or the parent's deadline stops it too.
    this.control = new RunControl(parent?.signal ?? options.signal);
    const { settingsLlm, secrets, error } = setUpModel(agent, options, this.baseScope({}));
    this.setupError = error;
    this.sanitizer = createSanitizer(secrets);
    this.trace = new TraceWriter(options.traceStore, this.runId);
    this.events = new RunEvents(this.runId, restored?.seq ?? 0, secrets, () => this.now(), this.trace);
    this.checkpoints = new Checkpointer(options.checkpointStore, this.sanitizer, this.trace);
    this.durable = new DurableVisits(this.runId, options.durability, (data, node) => this.emit('log', data, node));
    const trace = agent.spec.settings.trace;
    this.modelCaller = createModelCaller({
      settingsLlm,
      ...(options.llm?.overrides !== undefined ? { overrides: options.llm.overrides } : {}),
      ...(options.llm?.providerFactory !== undefined ? { providerFactory: options.llm.providerFactory } : {}),
      signal: this.control.signal,
      emit: (type, data) => this.emit(type, data, this.currentNode),
      budget: this.budget,
      capturePayloads: options.capturePayloads ?? trace?.capture_payloads === true,
      secrets,
      scriptedCalls: this.scriptedCalls,
    });
  }

  get files(): FileStore | undefined {
    const store = this.options.files;
    if (store === undefined) return undefined;
    this.budgetedFiles ??= writeBudgetedFiles(store, (bytes) => this.budget.chargeWrite(bytes, this.currentNode));
    return this.budgetedFiles;
  }

  get channel(): EventChannel<AgentEvent> {
    return this.events.channel;
  }

  get signal(): AbortSignal {
    return this.control.signal;
  }

  /** Counts a node visit against max_steps (used by parallel branches). */
  stepBudget(node: string): void {
    this.budget.step(node);
  }

  /** The duration budget checked from inside synchronous work (Lua), where no timer can fire. */
  checkDeadline(node: string): void {
    this.budget.checkDuration(node);
  }

  /**
   * Lets the host's event loop run when the run has worked a while without waiting (host-yield.ts):
   * the host's, shared by all its runs (RunOptions.breathe), else this run's own.
   */
  readonly breathe: () => Promise<void>;

  cancel(reason?: string): void {
    this.control.cancel(reason);
  }

  abortError(): AgentError | undefined {
    return this.control.abortError();
  }

  now(): number {
    return (this.options.now ?? Date.now)();
  }

  private readonly clock = () => this.now();

  baseScope(state: State): TemplateScope {
    const { variables, settings, secrets, env } = this.scope;
    // A literal, not a spread: this runs on every node visit (params and routing). `env` is only
    // what the host passed (the CLI: --env NAME and settings.env), else empty so `env.X` is none as
    // in TEA; `now()` reads the run's clock (RunOptions.now), so a test can fix it.
    return { state, variables, settings, secrets, env: env ?? EMPTY_ENV, [TEMPLATE_CLOCK]: this.clock };
  }

  /** `frames`: where in a sub-run below this run the event happened (sub-run.ts). */
  emit<T extends EventType>(type: T, data: EventData<T>, node?: string, frames: SubRunFrame[] = []): void {
    if (this.parent === undefined) {
      if (type === 'llm_request') this.models.add((data as EventData<'llm_request'>).model);
      return this.events.emit(type, data, node, frames);
    }
    // The child's own secrets (its settings.llm key) are redacted before the parent sees the event.
    const frame: SubRunFrame = {
      agent: this.agent.name,
      file: this.parent.file,
      ...(node !== undefined ? { node } : {}),
    };
    this.parent.emit(type, this.sanitizer.value(data), [frame, ...frames]);
  }

  /**
   * Runs the agent file `reference` (relative to this agent's folder) as a sub-run started by
   * `node`: same budget, same signal, its events nested in this run's trace; returns its final state.
   */
  async runAgentFile(reference: string, input: State, node: string): Promise<SubRunResult> {
    const source = this.options.agentFiles;
    if (source === undefined) throw noAgentSource(node);
    const ownFile = this.parent?.file ?? this.options.agentFile;
    const chain = this.parent?.chain ?? (this.options.agentFile !== undefined ? [this.options.agentFile] : []);
    const file = resolveSubRunFile(reference, ownFile, chain, node);
    const child = await loadSubAgent(source, file, this.agent, node);
    const link: SubRunLink = {
      budget: this.budget,
      signal: this.control.signal,
      file,
      chain: [...chain, file],
      emit: (type, data, frames) => this.emit(type, data, node, frames),
      persist: () => this.persistEvents(),
    };
    const mark = (status: 'started' | 'completed' | 'failed') =>
      this.emit(
        'log',
        {
          source: 'sub_run',
          message: `sub-agent '${child.name}' (${file}) ${status}`,
          agent: child.name,
          file,
          status,
        },
        node,
      );
    mark('started');
    try {
      // The same run id: the child's events are this run's, and its actions read this run's trace.
      const state = await new RunSession(
        child,
        { ...this.options, runId: this.runId, agentFile: file, durability: undefined },
        undefined,
        link,
      ).runAsSubRun(input);
      mark('completed');
      return { agent: child.name, file, state };
    } catch (error) {
      mark('failed');
      throw subRunFailure(error, child, file, this.agent, node);
    }
  }

  /** The graph loop of a sub-run: no record, no trace of its own, no `done`; it cannot pause. */
  private async runAsSubRun(input: State): Promise<State> {
    if (this.setupError !== undefined) throw this.setupError;
    this.state = initialState(this.agent, input);
    const outcome = await this.loop({ node: this.agent.entry, skipInterruptBefore: false }).finally(() =>
      this.runEndHooks(),
    );
    if (outcome.status === 'interrupted') {
      throw new AgentError(
        'ACTION_FAILED',
        `agent '${this.agent.name}' asked to pause at node '${outcome.pending.node}'; a sub-run cannot pause`,
        { node: outcome.pending.node },
      );
    }
    return this.state;
  }

  callLlm(params: Parameters<ModelCaller['call']>[0], options: Parameters<ModelCaller['call']>[1], node: string) {
    this.currentNode = node;
    return this.modelCaller.call(params, options);
  }

  embed(params: Parameters<ModelCaller['embed']>[0], node: string) {
    this.currentNode = node;
    return this.modelCaller.embed(params);
  }

  /** A node's body run on `state` for an action (retry.loop's correction); counts a step. */
  async runNodeBody(name: string, state: State): Promise<Record<string, unknown>> {
    const target = this.agent.nodes.get(name);
    if (target === undefined)
      throw new AgentError('INVALID_PARAMS', `there is no node '${name}' in agent '${this.agent.name}'`, {
        details: { node: name },
      });
    this.budget.step(name);
    const update = await executeBody(this, target.body, name, state);
    if (isPauseRequest(update))
      throw new AgentError(
        'ACTION_FAILED',
        `node '${name}' asked for a tool confirmation, which cannot happen inside another action`,
        { node: name },
      );
    return update;
  }

  /** The node visit's idempotency key (durable-visits.ts). */
  idempotencyKey(node: string): string {
    return this.durable.idempotencyKey(node);
  }

  /** Work its actions asked to do when the run (or this sub-run) ends: MCP sessions to close. */
  onRunEnd(cleanup: () => Promise<void>): void {
    this.endHooks.push(cleanup);
  }

  private async runEndHooks(): Promise<void> {
    if (this.endHooks.length === 0) return;
    // A hook is code of its own: sizes remembered for done may no longer hold.
    this.events.forgetSizes();
    await Promise.allSettled(this.endHooks.splice(0).map((cleanup) => cleanup()));
  }

  /** A side-effecting tool call, at most once per recorded result (durable-visits.ts). */
  onceRecorded(
    node: string,
    tool: string,
    call: (key: string) => Promise<unknown>,
    replayed?: (value: unknown) => void,
  ): Promise<unknown> {
    return this.durable.onceRecorded(node, tool, call, replayed);
  }

  /** A recorded model response handed back counts as a model call for the budgets. */
  chargeRecordedModelCall(response: LlmResponse): void {
    this.budget.beforeLlmCall();
    this.budget.afterLlmCall(response.usage);
  }

  /** Writes the buffered events to the trace store now (actions that read the current run). */
  persistEvents(): Promise<void> {
    return this.parent !== undefined ? this.parent.persist() : this.trace.persist();
  }

  /** Starts a fresh run from its input. */
  async start(input: unknown): Promise<RunResult> {
    await this.putRecord('running');
    this.emit('run_start', { agent: this.agent.name, input: input ?? {} });
    return this.run(() => {
      this.state = initialState(this.agent, input);
      return { node: this.agent.entry, skipInterruptBefore: false };
    });
  }

  /** Continues a run from a checkpoint (claimed): its record says `running` again while it runs. */
  async resumeFrom(state: State, start: StartPoint): Promise<RunResult> {
    this.state = state;
    await this.putRecord('running');
    return this.run(() => start);
  }

  /** Continues a run from a node checkpoint after its host died (resume-run.ts `continueFromNode`). */
  continueAfterRestart(checkpoint: NodeCheckpoint): Promise<RunResult> {
    this.state = checkpoint.state;
    this.emit(
      'log',
      {
        source: 'durable',
        message: `run continued at node '${checkpoint.node}' after its host restarted`,
        resumed_at: checkpoint.node,
      },
      checkpoint.node,
    );
    return this.run(() => ({
      node: checkpoint.node,
      skipInterruptBefore: checkpoint.skip_interrupt_before,
      ...(checkpoint.resume !== undefined ? { resume: checkpoint.resume } : {}),
    }));
  }

  /** Ends a claimed run that cannot continue (its record, `error` and `done` events as for any failure). */
  failBeforeStart(state: State, error: unknown): Promise<RunResult> {
    this.state = state;
    return this.finish(failureOutcome(error, this.control.abortError()));
  }

  private async run(prepare: () => StartPoint): Promise<RunResult> {
    this.control.armDeadline(this.budget);
    let outcome: Outcome;
    try {
      if (this.setupError !== undefined) throw this.setupError;
      outcome = await this.loop(prepare());
    } catch (error) {
      outcome = failureOutcome(error, this.control.abortError());
    }
    return this.finish(outcome);
  }

  private async loop(start: StartPoint): Promise<Outcome> {
    let current = start.node;
    let skipBefore = start.skipInterruptBefore;
    let resume = start.resume;
    while (current !== END) {
      const node = this.agent.nodes.get(current);
      if (node === undefined) throw new AgentError('NO_ROUTE', `node '${current}' does not exist`);
      await this.breathe();
      if (this.control.signal.aborted) throw toAgentError(this.control.abortError(), 'CANCELLED', { node: current });
      if (this.durable.durability !== undefined) await this.saveProgress(current, skipBefore, resume);
      this.control.activeNode = current;
      this.budget.step(current);
      this.durable.beginVisit(this.budget.usage.steps);
      if (node.interruptBefore && !skipBefore) {
        return this.pause(node, 'before', { kind: 'interrupt', node: node.name, position: 'before' });
      }
      skipBefore = false;
      const ran = await this.runNode(node, this.state, resume, true);
      if (isPauseRequest(ran)) return this.pauseForConfirmation(node, ran);
      resume = undefined;
      if (node.interruptAfter) {
        return this.pause(node, 'after', { kind: 'interrupt', node: node.name, position: 'after' });
      }
      const next = nextNode(node, this.baseScope(this.state));
      if (typeof next === 'string') {
        current = next;
      } else {
        const results = await runParallel(this, next, this.state, this.agent.spec.settings);
        this.state = { ...this.state, parallel_results: results };
        current = next.fanIn;
      }
      if (this.trace.due) await this.trace.persist();
    }
    return { status: 'completed' };
  }

  /**
   * Runs one node (run-node.ts) and merges its update: into the run's state for the main flow, into
   * `state` for a parallel branch. A PauseRequest is returned as is.
   */
  async runNode(
    node: CompiledNode,
    state: State,
    resume: ResumeInfo | undefined,
    mainFlow: boolean,
  ): Promise<State | PauseRequest> {
    const update = await runNode(this, node, state, resume);
    if (isPauseRequest(update)) return update;
    const merged = mergeShallow(mainFlow ? this.state : state, update);
    if (mainFlow) this.state = merged;
    return merged;
  }

  /**
   * The node checkpoint before `node` (durable hosts): the events so far go to the trace store
   * first, so a run continued from here numbers its events after them and loses none.
   */
  private async saveProgress(
    node: string,
    skipInterruptBefore: boolean,
    resume: ResumeInfo | undefined,
  ): Promise<void> {
    await this.trace.persist();
    const { agent, state, memory, scriptedCalls, createdAt: runCreatedAt, lineage, owner } = this;
    const position = {
      agent: agent.name,
      node,
      skipInterruptBefore,
      resume,
      state,
      memory,
      scriptedCalls,
      runCreatedAt,
      lineage,
      owner,
    };
    const budget = {
      seq: this.events.lastSeq,
      usage: this.budget.usage,
      budgetStartedAt: this.budget.started,
      remainingMs: this.budget.remainingMs(),
      now: this.now(),
    };
    try {
      await this.durable.save({ ...position, ...budget }, (value) => this.sanitizer.value(value));
    } catch (error) {
      // The host's store failed (its flush of these events, or the checkpoint): like a failed trace
      // write, no more events are written, so the host's own log can fill the trace without a hole.
      this.trace.noteFailure(error);
      throw error;
    }
  }

  private pauseForConfirmation(node: CompiledNode, pause: PauseRequest): Outcome {
    if (this.parent !== undefined) {
      throw new AgentError(
        'ACTION_FAILED',
        `node '${node.name}' asked for a confirmation of tool '${pause.confirmation.tool}'; a sub-run cannot pause`,
        { node: node.name },
      );
    }
    const request = pause.confirmation;
    const shown = request.description !== undefined ? { description: request.description } : {};
    this.emit(
      'confirmation_request',
      { tool: request.tool, arguments: request.arguments, call_id: request.call_id, ...shown },
      node.name,
    );
    const pending: PendingInterrupt = {
      kind: 'tool_confirmation',
      node: node.name,
      tool: request.tool,
      arguments: request.arguments,
      call_id: request.call_id,
      ...shown,
    };
    return this.pause(node, 'before', pending, request.resume_data);
  }

  private pause(
    node: CompiledNode,
    position: 'before' | 'after',
    pending: PendingInterrupt,
    resumeData?: Record<string, unknown>,
  ): Outcome {
    const checkpoint = makeCheckpoint({
      runId: this.runId,
      agent: this.agent.name,
      node: node.name,
      position,
      state: this.state,
      pending,
      usage: this.budget.usage,
      memory: this.memory,
      scriptedCalls: this.scriptedCalls,
      resumeData,
      lineage: this.lineage,
      owner: this.owner,
      now: this.now(),
    });
    this.emit('interrupt', { checkpoint_id: checkpoint.checkpoint_id, node: node.name, position, pending }, node.name);
    return { status: 'interrupted', pending, checkpoint };
  }

  private async finish(outcome: Outcome): Promise<RunResult> {
    this.control.disarm();
    await this.runEndHooks();
    const result: RunResult = {
      run_id: this.runId,
      status: outcome.status,
      stop_reason: stopReasonOf(outcome),
      state: this.state,
    };
    if (outcome.status === 'failed' || outcome.status === 'cancelled') {
      result.error = capRunError(outcome.error.toJSON(), this.sanitizer.secrets);
      this.emit('error', { ...result.error, fatal: true }, outcome.error.node);
    }
    if (outcome.status === 'interrupted') {
      result.interrupt = { ...outcome.pending, checkpoint_id: outcome.checkpoint.checkpoint_id };
      outcome.checkpoint.seq = this.events.lastSeq + 1;
      await this.checkpoints.save(outcome.checkpoint);
    }
    // What leaves the run (state, error, interrupt) goes through the one sanitiser, like its events.
    // The run is over: what needs no redaction is handed out as it is rather than copied.
    Object.assign(result, this.sanitizer.valueShared(result));
    await this.trace.persist();
    this.trace.failRunIfBroken(result);
    // The maker sanitises the state like `result`'s, from the state itself: a size measured for the
    // last node_end's update (the same values) is reused, not measured again.
    const done = this.events.make('done', doneData({ ...result, state: this.state }));
    this.trace.keep(done.event, done.bytes);
    await this.trace.persist();
    await this.putRecord(result.status, result, true);
    await this.trace.flush();
    // Events are frozen: a run that could not be stored ends with a copy of `done` that says so.
    // (The data is a copy: the result handed back to the caller stays the caller's to change.)
    const last: AgentEvent = this.trace.failRunIfBroken(result)
      ? freezeJson<AgentEvent<'done'>>({
          ...(done.event as AgentEvent<'done'>),
          data: this.sanitizer.value(doneData(result)),
        })
      : done.event;
    if (result.status !== 'interrupted') await this.checkpoints.discard(this.runId);
    this.events.close(last);
    return result;
  }

  /** Writes the run record; `final`: the record of the run's end, tried even after a storage failure. */
  private async putRecord(status: RunResult['status'], result?: RunResult, final = false): Promise<void> {
    const write = final
      ? (record: RunRecord) => this.trace.putFinalRecord(record)
      : (record: RunRecord) => this.trace.putRecord(record);
    await write({
      run_id: this.runId,
      agent: this.agent.name,
      status,
      ...(result !== undefined ? { stop_reason: result.stop_reason } : {}),
      created_at: this.createdAt,
      updated_at: new Date(this.now()).toISOString(),
      ...(result?.error !== undefined ? { error: result.error } : {}),
      event_count: this.events.lastSeq,
      ...(await this.usageOnRecord()),
      ...this.lineage,
      ...(this.owner !== undefined ? { owner: this.owner } : {}),
    });
  }

  /**
   * What the run record says the run used so far (the history lists it): the budget's model calls
   * and tokens, which a resume carries over, and the models. A resumed segment reads the models of
   * the earlier ones from the record once, before its first write replaces it (an unreadable
   * record adds none).
   */
  private async usageOnRecord(): Promise<Pick<RunRecord, 'usage' | 'models'>> {
    this.earlierModels ??=
      this.restored && this.traceStore !== undefined
        ? this.traceStore.getRun(this.runId).then(
            (record) => record?.models ?? [],
            () => [],
          )
        : Promise.resolve([]);
    const models = [...new Set([...(await this.earlierModels), ...this.models])];
    const { llm_calls, tokens } = this.budget.usage;
    return { usage: { llm_calls, tokens }, ...(models.length > 0 ? { models } : {}) };
  }
}
