/** Builds the ActionContext a node's action runs with (see src/actions/types.ts). */
import { isPauseRequest, pauseRequest } from '../actions/pause-request.js';
import type {
  ActionContext,
  ActionDefinition,
  ConfirmationRequest,
  EmbedCallParams,
  EmbedResult,
  LlmCallOptions,
  LlmCallParams,
  PauseRequest,
  ResumeInfo,
  RunCapabilities,
  State,
  SubRunResult,
} from '../core/action.js';
import { AgentError } from '../core/agent-error.js';
import type { EventData, EventType } from '../core/events.js';
import type { LlmResponse } from '../core/model-provider.js';
import type { TemplateScope } from '../templates/types.js';
import { createActionCompiler } from './compile-agent.js';
import type { CompiledAgent } from './compiled-agent.js';
import { MODEL_CALL } from './durable-visits.js';

/**
 * What the run session shares with every context it builds: the run's capabilities, and the
 * operations behind the context's methods, each told which node asks.
 */
export interface ContextHost extends RunCapabilities {
  readonly agent: CompiledAgent;
  baseScope(state: State): TemplateScope;
  emit<T extends EventType>(type: T, data: EventData<T>, node: string): void;
  callLlm(params: LlmCallParams, options: LlmCallOptions | undefined, node: string): Promise<LlmResponse>;
  embed(params: EmbedCallParams, node: string): Promise<EmbedResult>;
  /** Runs a node's body (no routing, no node events) and returns its update. */
  runNodeBody(name: string, state: State): Promise<Record<string, unknown>>;
  persistEvents(): Promise<void>;
  /** Runs an agent file of the host as a sub-run of this run, started by `node` (src/graph/sub-run.ts). */
  runAgentFile(file: string, input: State, node: string): Promise<SubRunResult>;
  /** The node visit's idempotency key (`run_id:node:step`), stable when the node re-runs after a restart. */
  idempotencyKey(node: string): string;
  /** Runs a side-effecting tool call once per recorded result (RunDurability); `call` gets the call's key. */
  onceRecorded(
    node: string,
    tool: string,
    call: (key: string) => Promise<unknown>,
    replayed?: (value: unknown) => void,
  ): Promise<unknown>;
  /** Counts a model call whose recorded response is handed back (budgets: llm calls, tokens). */
  chargeRecordedModelCall(response: LlmResponse): void;
  /** Work to do when the run ends (ActionContext.onRunEnd). */
  onRunEnd(cleanup: () => Promise<void>): void;
}

export function createActionContext(host: ContextHost, node: string, state: State, resume?: ResumeInfo): ActionContext {
  return new NodeActionContext(host, node, state, resume);
}

/** A class rather than an object of closures: one context is made per action call. */
class NodeActionContext implements ActionContext {
  constructor(
    private readonly host: ContextHost,
    readonly node: string,
    readonly state: State,
    readonly resume: ResumeInfo | undefined,
    /** A tool call's own key (`callAction`); else the node visit's. */
    private readonly callKey?: string,
  ) {}

  get idempotencyKey() {
    return this.callKey ?? this.host.idempotencyKey(this.node);
  }

  get runId() {
    return this.host.runId;
  }
  get agentName() {
    return this.host.agent.name;
  }
  get variables() {
    return this.host.agent.spec.variables;
  }
  get settings() {
    return this.host.agent.spec.settings;
  }
  get signal() {
    return this.host.signal;
  }
  get role() {
    return this.host.role;
  }
  get memory() {
    return this.host.memory;
  }
  get traceStore() {
    return this.host.traceStore;
  }
  get files() {
    return this.host.files;
  }

  scope(extra?: Record<string, unknown>): TemplateScope {
    const scope = this.host.baseScope(this.state);
    return extra === undefined ? scope : { ...scope, ...extra };
  }

  emit<T extends EventType>(type: T, data: EventData<T>): void {
    this.host.emit(type, data, this.node);
  }

  async flushEvents(): Promise<void> {
    await this.host.persistEvents();
    await this.host.traceStore?.flush(this.host.runId);
  }

  onRunEnd(cleanup: () => Promise<void>): void {
    this.host.onRunEnd(cleanup);
  }

  callLlm(params: LlmCallParams, options?: LlmCallOptions): Promise<LlmResponse> {
    const { host, node } = this;
    // With a durable host each response is recorded: a node run again after its host died gets
    // the responses it already had, in order, instead of paying for them again (durable-visits.ts).
    const call = () => host.callLlm(params, options, node);
    return host.onceRecorded(node, MODEL_CALL, call, (recorded) =>
      host.chargeRecordedModelCall(recorded as LlmResponse),
    ) as Promise<LlmResponse>;
  }

  embed(params: EmbedCallParams) {
    return this.host.embed(params, this.node);
  }

  runNode(name: string, state: State): Promise<Record<string, unknown>> {
    return this.host.runNodeBody(name, state);
  }

  runAgentFile(file: string, input: State): Promise<SubRunResult> {
    return this.host.runAgentFile(file, input, this.node);
  }

  async callAction(name: string, params: Record<string, unknown>, options?: { state?: State }): Promise<unknown> {
    const { host, node } = this;
    if (host.signal.aborted) throw new AgentError('CANCELLED', 'the run was cancelled', { node });
    const action: ActionDefinition = host.agent.registry.resolve(name);
    // A tool that changes something outside the run runs once per recorded result, with its own key.
    const result =
      action.sideEffects === true
        ? await host.onceRecorded(node, name, (key) => this.runCalled(action, params, options?.state, key))
        : await this.runCalled(action, params, options?.state, undefined);
    // Only the node's own action can pause: a resumed node re-runs that action with the answer, so
    // a pause asked for by an action it called could never be answered.
    if (isPauseRequest(result)) {
      throw new AgentError(
        'ACTION_FAILED',
        `action '${name}' asked for a confirmation, which an action called by another action cannot do`,
        { node },
      );
    }
    return result;
  }

  private async runCalled(
    action: ActionDefinition,
    params: Record<string, unknown>,
    state: State | undefined,
    key: string | undefined,
  ): Promise<unknown> {
    const { host, node } = this;
    const nested = new NodeActionContext(host, node, state ?? this.state, undefined, key);
    if (action.prepare === undefined) return action.run(params, nested);
    const agent = host.agent;
    const compiler = createActionCompiler(
      agent.spec,
      { name: node },
      agent.registry,
      { ...agent.spec.schemas },
      agent.nodes.get(node)?.spec.path ?? [],
      agent.scripts,
    );
    // Params given here are final values (often a model's tool arguments): never compile them as
    // templates, or `{{ secrets.x }}` written by a model would be rendered (second-order injection).
    compiler.template = (value) => ({ source: value, isStatic: true, render: () => structuredClone(value) });
    return action.run(action.prepare(params, compiler), nested);
  }

  requestConfirmation(request: ConfirmationRequest): PauseRequest {
    return pauseRequest(request);
  }

  listActions() {
    return this.host.agent.registry.list().map((action) => ({
      name: action.name,
      description: action.description,
      ...(action.parameters !== undefined ? { parameters: action.parameters } : {}),
      side_effects: action.sideEffects === true,
    }));
  }
}
