/**
 * One run of a compiled agent: the graph loop of SPEC §1 (see docs/execution-model.md).
 *
 *   state ← initial_state ⊕ input
 *   node ← entry
 *   while node ≠ __end__:
 *     budget.step(); interrupt_before? → checkpoint, stop
 *     update ← execute(node) with on_error; state ← state ⊕ update
 *     interrupt_after? → checkpoint, stop
 *     node ← route(node, state)        (goto > edges > list order; parallel fan-out runs branches)
 *   done
 *
 * Every run ends with exactly one `done` event and a RunResult with a status and a stop reason.
 */
import type { ResumeInfo, State } from '../actions/types.js';
import { AgentError, toAgentError, type AgentErrorJson } from '../errors/agent-error.js';
import type { AgentEvent, DoneData, EventData, EventType, RunStatus, StopReason } from '../events/event.js';
import { createRunEventCap, sanitizeEventWithSize } from '../events/redact.js';
import { createSanitizer } from '../events/outbound.js';
import { createModelCaller, type ModelCaller } from '../llm/model-caller.js';
import { sleep } from '../llm/retry.js';
import type { Checkpoint, PendingInterrupt } from '../storage/trace-store.js';
import { isPlainObject, mergeShallow, toPlainJson } from '../util/safe-json.js';
import type { CompiledAgent, CompiledNode } from './compiled-agent.js';
import { createEventChannel, type EventChannel } from './event-channel.js';
import { executeBody, type BodyHost } from './execute-body.js';
import { isPauseSignal } from './pause-signal.js';
import { nextNode } from './route.js';
import { budgetOf, durationExceeded, resolveLimits, RunBudget, type BudgetUsage } from './run-budget.js';
import { capRunError } from './run-error.js';
import type { RunOptions, RunResult } from './run-types.js';
import { runParallel } from './run-parallel.js';

const END = '__end__';
/** Buffered events are appended to the trace store in batches of at least this many (and at the end). */
const PERSIST_BATCH = 64;

type Outcome =
  | { status: 'completed' }
  | { status: 'failed' | 'cancelled'; error: AgentError; stopReason: StopReason }
  | { status: 'interrupted'; pending: PendingInterrupt; checkpoint: Checkpoint };

export interface StartPoint {
  node: string;
  /** Skip the interrupt_before check of the first node (resuming a before-interrupt). */
  skipInterruptBefore: boolean;
  resume?: ResumeInfo;
}

export class RunSession implements BodyHost {
  readonly runId: string;
  readonly channel: EventChannel<AgentEvent> = createEventChannel();
  readonly memory: Map<string, unknown>;
  private readonly scriptedCalls: Map<string, number>;
  readonly role: string | undefined;
  readonly traceStore;
  readonly luaInstructions: number | undefined;
  private readonly controller = new AbortController();
  private readonly budget: RunBudget;
  private readonly modelCaller: ModelCaller;
  private readonly secretValues: string[];
  private readonly pendingEvents: AgentEvent[] = [];
  private readonly createdAt: string;
  private storageError: AgentError | undefined;
  private seq: number;
  state: State = {};

  constructor(
    readonly agent: CompiledAgent,
    private readonly options: RunOptions,
    restored?: { runId: string; seq: number; usage: BudgetUsage; memory: Record<string, unknown>; createdAt?: string; scriptedCalls?: Record<string, number> },
  ) {
    this.runId = restored?.runId ?? options.runId ?? crypto.randomUUID();
    this.seq = restored?.seq ?? 0;
    this.memory = new Map(Object.entries(restored?.memory ?? {}));
    this.scriptedCalls = new Map(Object.entries(restored?.scriptedCalls ?? {}));
    this.role = options.role;
    this.traceStore = options.traceStore;
    this.createdAt = restored?.createdAt ?? new Date(this.now()).toISOString();
    this.budget = new RunBudget(resolveLimits(agent.spec.limits, options.limits, options.limitOverrides), restored?.usage, () => this.now());
    const luaSettings = agent.spec.settings.lua as { instructions?: number } | undefined;
    this.luaInstructions = luaSettings?.instructions;
    if (options.signal !== undefined) {
      if (options.signal.aborted) this.controller.abort(options.signal.reason);
      else options.signal.addEventListener('abort', () => this.controller.abort(options.signal!.reason), { once: true });
    }
    // settings.llm strings are templates (TEA renders them once with no state): `{{ secrets.key }}` works.
    // A template error here fails the run when it starts (runAgent never throws).
    let settingsLlm: Record<string, unknown> = {};
    try {
      settingsLlm = agent.settingsLlm.render(this.baseScope({})) as Record<string, unknown>;
    } catch (error) {
      this.setupError = toAgentError(error, 'TEMPLATE_ERROR', { field: 'settings.llm' });
    }
    this.secretValues = [
      ...Object.values(options.secrets ?? {}),
      typeof settingsLlm.api_key === 'string' ? settingsLlm.api_key : '',
      options.llm?.overrides?.api_key ?? '',
    ].filter((value) => typeof value === 'string' && value.length >= 4);
    const trace = agent.spec.settings.trace as { capture_payloads?: boolean } | undefined;
    this.modelCaller = createModelCaller({
      settingsLlm,
      ...(options.llm?.overrides !== undefined ? { overrides: options.llm.overrides } : {}),
      ...(options.llm?.providerFactory !== undefined ? { providerFactory: options.llm.providerFactory } : {}),
      signal: this.controller.signal,
      emit: (type, data) => this.emit(type, data, this.currentNode),
      budget: this.budget,
      capturePayloads: options.capturePayloads ?? trace?.capture_payloads === true,
      secrets: this.secretValues,
      scriptedCalls: this.scriptedCalls,
    });
  }

  private currentNode: string | undefined;
  /** A failure found while building the session, reported when the run starts. */
  private setupError: AgentError | undefined;
  /** The node of the main flow being run, for errors raised from outside it (the duration timer). */
  private activeNode: string | undefined;
  private durationTimer: ReturnType<typeof setTimeout> | undefined;

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Counts a node visit against max_steps (used by parallel branches). */
  stepBudget(node: string): void {
    this.budget.step(node);
  }

  /** The duration budget checked from inside synchronous work (Lua), where no timer can fire. */
  checkDeadline(node: string): void {
    this.budget.checkDuration(node);
  }

  cancel(reason = 'cancelled by the host'): void {
    if (!this.controller.signal.aborted) this.controller.abort(new AgentError('CANCELLED', reason));
  }

  /**
   * max_duration_ms is a deadline, not only a check between nodes: when it passes, the run's signal
   * is aborted, which ends the model call, tool call or retry sleep in flight.
   */
  private armDurationTimer(): void {
    const remaining = this.budget.remainingMs();
    if (remaining === undefined) return;
    const limit = this.budget.limits.max_duration_ms!;
    this.durationTimer = setTimeout(() => {
      if (!this.controller.signal.aborted) this.controller.abort(durationExceeded(limit, this.activeNode));
    }, Math.max(0, remaining));
  }

  /** Why the run's signal was aborted (a host cancel or a budget), when it was. */
  private abortError(): AgentError | undefined {
    const signal = this.controller.signal;
    if (!signal.aborted) return undefined;
    return AgentError.isInstance(signal.reason) ? signal.reason : new AgentError('CANCELLED', 'the run was cancelled');
  }

  now(): number {
    return (this.options.now ?? Date.now)();
  }

  private lastStamp = { ms: -1, iso: '' };

  /** ISO-8601 UTC with milliseconds, formatted once per millisecond. */
  private timestamp(): string {
    const ms = this.now();
    if (ms !== this.lastStamp.ms) this.lastStamp = { ms, iso: new Date(ms).toISOString() };
    return this.lastStamp.iso;
  }

  baseScope(state: State) {
    const scope: Record<string, unknown> = {
      state,
      variables: this.agent.spec.variables,
      settings: this.agent.spec.settings,
      secrets: this.options.secrets ?? {},
    };
    if (this.options.env !== undefined) scope.env = this.options.env;
    return scope;
  }

  emit<T extends EventType>(type: T, data: EventData<T>, node?: string): void {
    const event = this.makeEvent(type, data, node);
    this.store(event);
    this.channel.push(event);
  }

  /** Buffers an event for the trace store, within the per-run trace cap (10,000 events / 8 MiB). */
  private store(event: AgentEvent): void {
    const kept = this.traceCap.admit(event, this.lastEventBytes);
    if (kept !== undefined) this.pendingEvents.push(kept);
  }

  private readonly traceCap = createRunEventCap();
  private lastEventBytes = 0;

  /** A numbered, timestamped, sanitised (secrets redacted, size-capped) event. */
  private makeEvent<T extends EventType>(type: T, data: EventData<T>, node?: string): AgentEvent {
    // TypeScript cannot relate a generic T to its member of the union: the fields are checked by emit's signature.
    const event = { type, run_id: this.runId, seq: ++this.seq, ts: this.timestamp(), data } as AgentEvent;
    if (node !== undefined) event.node = node;
    const sanitized = sanitizeEventWithSize(event, { secrets: this.secretValues }, false);
    this.lastEventBytes = sanitized.bytes;
    return sanitized.event;
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
    if (target === undefined) throw new AgentError('INVALID_PARAMS', `there is no node '${name}' in agent '${this.agent.name}'`, { details: { node: name } });
    this.budget.step(name);
    return executeBody(this, target.body, name, state);
  }

  /** Writes buffered events to the trace store; a failure is remembered and fails the run. */
  async persistEvents(): Promise<void> {
    const store = this.options.traceStore;
    if (store === undefined || this.pendingEvents.length === 0 || this.storageError !== undefined) {
      if (store === undefined) this.pendingEvents.length = 0;
      return;
    }
    const batch = this.pendingEvents.splice(0, this.pendingEvents.length);
    try {
      await store.appendEvents(this.runId, batch);
    } catch (error) {
      this.storageError = toAgentError(error, 'STORAGE_ERROR');
    }
  }

  private async putRecord(status: RunStatus, stopReason?: StopReason, error?: AgentErrorJson): Promise<void> {
    const store = this.options.traceStore;
    if (store === undefined || this.storageError !== undefined) return;
    try {
      await store.putRun({
        run_id: this.runId,
        agent: this.agent.name,
        status,
        ...(stopReason !== undefined ? { stop_reason: stopReason } : {}),
        created_at: this.createdAt,
        updated_at: new Date(this.now()).toISOString(),
        ...(error !== undefined ? { error } : {}),
        event_count: this.seq,
      });
    } catch (caught) {
      this.storageError = toAgentError(caught, 'STORAGE_ERROR');
    }
  }

  /** Starts a fresh run from its input. */
  async start(input: unknown): Promise<RunResult> {
    await this.putRecord('running');
    this.emit('run_start', { agent: this.agent.name, input: input ?? {} });
    this.armDurationTimer();
    let outcome: Outcome;
    try {
      if (this.setupError !== undefined) throw this.setupError;
      if (input !== undefined && !isPlainObject(input)) throw new AgentError('INPUT_INVALID', 'the run input must be a JSON object');
      const plainInput = (toPlainJson(input ?? {}, 'input') ?? {}) as State;
      if (this.agent.inputSchema !== undefined) {
        const check = this.agent.inputSchema.validate(plainInput);
        if (!check.valid) {
          throw new AgentError('INPUT_INVALID', `input does not match input_schema: ${check.errors.map((error) => `${error.path || '/'} ${error.message}`).join('; ')}`, {
            details: { errors: check.errors },
          });
        }
      }
      this.state = mergeShallow(structuredClone(this.agent.spec.initialState) as State, plainInput);
      outcome = await this.loop({ node: this.agent.entry, skipInterruptBefore: false });
    } catch (error) {
      outcome = this.failure(error);
    }
    return this.finish(outcome);
  }

  /** Continues a run from a checkpoint. */
  async resumeFrom(state: State, start: StartPoint): Promise<RunResult> {
    this.state = state;
    this.armDurationTimer();
    let outcome: Outcome;
    try {
      if (this.setupError !== undefined) throw this.setupError;
      outcome = await this.loop(start);
    } catch (error) {
      outcome = this.failure(error);
    }
    return this.finish(outcome);
  }

  /** Ends a claimed run that cannot continue (its record, `error` and `done` events as for any failure). */
  async failBeforeStart(state: State, error: unknown): Promise<RunResult> {
    this.state = state;
    return this.finish(this.failure(error));
  }

  /**
   * The outcome of a run that threw. An aborted signal decides first: its reason is a host cancel
   * (status cancelled) or the duration budget (status failed, stop reason max_duration_ms), whatever
   * the interrupted call threw on its way out.
   */
  private failure(error: unknown): Outcome {
    const thrown = toAgentError(error, 'INTERNAL');
    const aborted = this.abortError();
    const agentError = aborted === undefined ? thrown : toAgentError(aborted, 'CANCELLED', thrown.node !== undefined ? { node: thrown.node } : {});
    const budget = budgetOf(agentError);
    if (budget !== undefined) return { status: 'failed', error: agentError, stopReason: budget };
    if (agentError.code === 'CANCELLED') return { status: 'cancelled', error: agentError, stopReason: 'cancelled' };
    return { status: 'failed', error: agentError, stopReason: 'error' };
  }

  private async loop(start: StartPoint): Promise<Outcome> {
    let current = start.node;
    let skipBefore = start.skipInterruptBefore;
    let resume = start.resume;
    while (current !== END) {
      const node = this.agent.nodes.get(current);
      if (node === undefined) throw new AgentError('NO_ROUTE', `node '${current}' does not exist`);
      if (this.controller.signal.aborted) throw toAgentError(this.abortError(), 'CANCELLED', { node: current });
      this.activeNode = current;
      this.budget.step(current);
      if (node.interruptBefore && !skipBefore) {
        return this.pause(node, 'before', { kind: 'interrupt', node: node.name, position: 'before' });
      }
      skipBefore = false;
      try {
        await this.runNode(node, this.state, resume, true);
      } catch (error) {
        if (isPauseSignal(error)) {
          const request = error.request;
          this.emit('confirmation_request', { tool: request.tool, arguments: request.arguments, call_id: request.call_id }, node.name);
          return this.pause(
            node,
            'before',
            { kind: 'tool_confirmation', node: node.name, tool: request.tool, arguments: request.arguments, call_id: request.call_id },
            request.resume_data,
          );
        }
        throw error;
      }
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
      if (this.pendingEvents.length >= PERSIST_BATCH) await this.persistEvents();
    }
    return { status: 'completed' };
  }

  /** Runs one node with its on_error policy, emitting node_start/node_end; merges the update into `state`. */
  async runNode(node: CompiledNode, state: State, resume: ResumeInfo | undefined, mainFlow: boolean): Promise<State> {
    const policy = node.spec.onError;
    const attempts = policy.mode === 'retry' ? policy.maxRetries + 1 : 1;
    for (let attempt = 1; ; attempt++) {
      this.emit('node_start', attempt > 1 ? { attempt } : {}, node.name);
      const started = this.now();
      let update: Record<string, unknown>;
      try {
        update = await this.withTimeout(node, () => executeBody(this, node.body, node.name, state, resume));
      } catch (error) {
        if (isPauseSignal(error)) throw error;
        // A call cut by the run's signal reports why the signal was aborted, not how the call ended.
        const agentError = toAgentError(this.abortError() ?? error, 'ACTION_FAILED', { node: node.name });
        const fatal = agentError.code === 'BUDGET_EXCEEDED' || agentError.code === 'CANCELLED' || this.controller.signal.aborted;
        this.emit('error', { ...agentError.toJSON(), node: node.name, attempt }, node.name);
        if (!fatal && attempt < attempts) {
          await sleep(Math.min(policy.backoffMs * 2 ** (attempt - 1), 30_000), this.controller.signal);
          continue;
        }
        if (fatal || policy.mode !== 'graceful') throw agentError;
        update = { __error__: { code: agentError.code, message: agentError.message, node: node.name } };
      }
      const merged = mergeShallow(mainFlow ? this.state : state, update);
      if (mainFlow) this.state = merged;
      this.emit('node_end', { update, duration_ms: this.now() - started }, node.name);
      return merged;
    }
  }

  private withTimeout<T>(node: CompiledNode, work: () => Promise<T>): Promise<T> {
    const limit = node.spec.timeoutMs;
    if (limit === undefined) return work();
    return this.raceTimeout(node, limit, work);
  }

  private async raceTimeout<T>(node: CompiledNode, limit: number, work: () => Promise<T>): Promise<T> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new AgentError('TIMEOUT', `node took longer than ${limit} ms`, { node: node.name })), limit);
    });
    try {
      return await Promise.race([work(), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async pause(node: CompiledNode, position: 'before' | 'after', pending: PendingInterrupt, resumeData?: Record<string, unknown>): Promise<Outcome> {
    const checkpoint: Checkpoint = {
      checkpoint_id: crypto.randomUUID(),
      run_id: this.runId,
      agent: this.agent.name,
      node: node.name,
      position,
      state: structuredClone(this.state),
      pending,
      seq: 0,
      usage: { ...this.budget.usage },
      memory: Object.fromEntries(this.memory),
      model_state: { scripted_calls: Object.fromEntries(this.scriptedCalls) },
      ...(resumeData !== undefined ? { resume_data: toPlainJson(resumeData, 'resume data') as Record<string, unknown> } : {}),
      created_at: new Date(this.now()).toISOString(),
    };
    this.emit('interrupt', { checkpoint_id: checkpoint.checkpoint_id, node: node.name, position, pending }, node.name);
    return { status: 'interrupted', pending, checkpoint };
  }

  private async finish(outcome: Outcome): Promise<RunResult> {
    clearTimeout(this.durationTimer);
    const result: RunResult = { run_id: this.runId, status: outcome.status, stop_reason: stopReasonOf(outcome), state: this.state };
    if (outcome.status === 'failed' || outcome.status === 'cancelled') {
      result.error = capRunError(outcome.error.toJSON(), this.secretValues);
      this.emit('error', { ...result.error, fatal: true }, outcome.error.node);
    }
    if (outcome.status === 'interrupted') {
      result.interrupt = { ...outcome.pending, checkpoint_id: outcome.checkpoint.checkpoint_id };
      outcome.checkpoint.seq = this.seq + 1;
      await this.saveCheckpoint(outcome.checkpoint);
    }
    // What leaves the run (state, error, interrupt) goes through the one sanitiser, like its events.
    Object.assign(result, createSanitizer(this.secretValues).value(result));
    await this.persistEvents();
    this.applyStorageFailure(result);
    const done = this.makeEvent('done', doneData(result));
    this.store(done);
    await this.persistEvents();
    await this.putRecord(result.status, result.stop_reason, result.error);
    if (this.options.traceStore !== undefined && this.storageError === undefined) {
      try {
        await this.options.traceStore.flush(this.runId);
      } catch (caught) {
        this.storageError = toAgentError(caught, 'STORAGE_ERROR');
      }
    }
    if (this.applyStorageFailure(result)) done.data = doneData(result);
    if (result.status !== 'interrupted' && this.options.checkpointStore !== undefined) {
      await this.options.checkpointStore.delete(this.runId).catch(() => undefined);
    }
    this.channel.push(done);
    this.channel.close();
    return result;
  }

  private async saveCheckpoint(checkpoint: Checkpoint): Promise<void> {
    const store = this.options.checkpointStore;
    if (store === undefined) return;
    try {
      await store.save(createSanitizer(this.secretValues).value(checkpoint));
    } catch (caught) {
      this.storageError ??= toAgentError(caught, 'STORAGE_ERROR');
    }
  }

  /** A run whose trace or checkpoint could not be stored never reports success. */
  private applyStorageFailure(result: RunResult): boolean {
    if (this.storageError === undefined || result.error?.code === 'STORAGE_ERROR') return false;
    const runError = result.error;
    result.status = 'failed';
    result.stop_reason = 'error';
    result.error = { ...this.storageError.toJSON(), ...(runError !== undefined ? { details: { ...this.storageError.details, run_error: runError } } : {}) };
    delete result.interrupt;
    return true;
  }
}

function stopReasonOf(outcome: Outcome): StopReason {
  if (outcome.status === 'completed') return 'completed';
  if (outcome.status !== 'interrupted') return outcome.stopReason;
  if (outcome.pending.kind === 'tool_confirmation') return 'confirmation';
  return outcome.pending.position === 'before' ? 'interrupt_before' : 'interrupt_after';
}

function doneData(result: RunResult): DoneData {
  return {
    status: result.status,
    stop_reason: result.stop_reason,
    state: result.state,
    ...(result.error !== undefined ? { error: result.error } : {}),
    ...(result.interrupt !== undefined ? { interrupt: result.interrupt } : {}),
  };
}
