/**
 * The action seam: `{name, description, parameters, sideEffects, run}` plus optional compile-time
 * preparation, and the context a running action is given. Actions are looked up in a Map by exact
 * name (src/actions/registry.ts). Contracts only: this file imports nothing else in src/.
 */
import type { AgentError, ErrorCode } from './agent-error.js';
import type { EventData, EventType } from './events.js';
import type { EmbedCallParams, LlmCallOptions, LlmCallParams, LlmResponse, TokenUsage } from './model-provider.js';
import type { CompiledValue, TemplateScope } from './template-scope.js';
import type { AgentSettings } from './agent-settings.js';
import type { CompiledScript, ScriptLanguage } from './script-sandbox.js';
import type { CompiledSchema, JsonSchema } from './json-schema.js';
import type { TraceStore } from './trace-store.js';
import type { FileStore } from './file-store.js';

export type { CompiledSchema, JsonSchema, SchemaError } from './json-schema.js';
export type { EmbedCallParams, LlmCallOptions, LlmCallParams } from './model-provider.js';

export type State = Record<string, unknown>;

/** Handed to `prepare` at agent load: compiles parts of the params and reports errors with place. */
export interface ActionCompiler {
  /** e.g. `agent.yaml node 'generate'`; used in error messages. */
  readonly node: string;
  template(value: unknown, field: string): CompiledValue;
  lua(code: string, field: string): CompiledScript;
  /** Compiles inline code in `language` with the host's sandbox for it (SCRIPT_ENGINE_NOT_LOADED when it has none). */
  script(language: ScriptLanguage, code: string, field: string): CompiledScript;
  schema(schema: unknown, field: string): CompiledSchema;
  /** Resolves an action name (aliases included) or throws UNKNOWN_ACTION with suggestions. */
  action(name: string, field: string): ActionDefinition;
  /** A load-time error at this node and field (INVALID_PARAMS unless another code is given). */
  error(message: string, field?: string, code?: ErrorCode): AgentError;
  /** The agent's declared tools settings and schemas, for actions that need them. */
  readonly agentSettings: Readonly<AgentSettings>;
}

/** What a paused tool call waits for: shown to the approver, kept in the checkpoint. */
export interface ConfirmationRequest {
  tool: string;
  arguments: unknown;
  call_id: string;
  /** What the tool does, shown to the approver (docs/mcp.md: an MCP server's description, capped). */
  description?: string;
  /** The action's own data, handed back as `context.resume.resume_data` when the node runs again. */
  resume_data: Record<string, unknown>;
}

/**
 * A pause, as a value: made by `context.requestConfirmation`, returned by the action (see
 * src/actions/pause-request.ts). Only the engine makes them; a look-alike object is plain data.
 */
export interface PauseRequest {
  readonly kind: 'pause_request';
  readonly confirmation: ConfirmationRequest;
}

/** Data a run hands back to an action re-run after a confirmation interrupt. */
export interface ResumeInfo {
  approval?: { approved: boolean; [key: string]: unknown };
  resume_data?: Record<string, unknown>;
}

/**
 * What a run lends every action it runs, the same for each of its nodes: written once, and shared
 * by the action context, the run that builds contexts (src/graph/action-context.ts `ContextHost`)
 * and the test context (`createTestActionContext` in tea-edge/testing).
 */
export interface RunCapabilities {
  readonly runId: string;
  readonly signal: AbortSignal;
  /** The caller's role (from the host), used by tool permissions. */
  readonly role: string | undefined;
  /** Run-scoped key-value memory (memory.store); saved with checkpoints. */
  readonly memory: Map<string, unknown>;
  /** The run's trace store, when the host gave one (the reviewer reads past runs from it). */
  readonly traceStore: TraceStore | undefined;
  /** The host's file root for file.read / file.write (src/core/file-store.ts); undefined when it gave none. */
  readonly files: FileStore | undefined;
}

/** What `embed` returns: one vector per text, in order. */
export interface EmbedResult {
  embeddings: number[][];
  model: string;
  usage: TokenUsage;
}

/**
 * The context one action call runs with: the run's capabilities, the node it runs for, and what
 * the action can do through the run. Every member is there in every context; a host that cannot
 * do something (no agent files, no file root) says so with a typed error when it is asked.
 */
export interface ActionContext extends RunCapabilities {
  readonly agentName: string;
  readonly node: string;
  /** The run's state when the node started (plus working-copy updates for sub-steps). */
  readonly state: Readonly<State>;
  readonly variables: Readonly<Record<string, unknown>>;
  readonly settings: Readonly<AgentSettings>;
  /** Present when this node is re-run after a confirmation interrupt. */
  readonly resume: ResumeInfo | undefined;
  /**
   * An idempotency key, `run_id:node:step` (plus `:tool#n` inside a tool call): the same when the
   * node runs again after its durable host restarted, so an action that changes something outside
   * the run can send it (an `Idempotency-Key` header) and the other side can ignore the repeat.
   */
  readonly idempotencyKey: string;
  /** The template scope for this node, with optional extra top-level names. */
  scope(extra?: Record<string, unknown>): TemplateScope;
  /** Emits an event of this node (the engine adds run_id, seq, ts and node); see src/core/events.ts for each type's fields. */
  emit<T extends EventType>(type: T, data: EventData<T>): void;
  /** Calls the model with settings.llm defaults applied; counts budgets; emits llm events. */
  callLlm(params: LlmCallParams, options?: LlmCallOptions): Promise<LlmResponse>;
  /**
   * Embeds texts through the run's model connection (settings.llm, the call's keys, host overrides),
   * counted in the LLM-call budget, with llm_request/llm_response events.
   */
  embed(params: EmbedCallParams): Promise<EmbedResult>;
  /**
   * Runs another node of this agent's graph on `state` and returns the state update it produced,
   * without routing (retry.loop's correction node).
   */
  runNode(name: string, state: State): Promise<Record<string, unknown>>;
  /**
   * Runs another registered action (params given are final: no template rendering). A called
   * action cannot pause the run: one that returns a PauseRequest fails with ACTION_FAILED.
   */
  callAction(name: string, params: Record<string, unknown>, options?: { state?: State }): Promise<unknown>;
  /**
   * Asks to pause the run for a tool confirmation. Return the value it gives from `run`
   * (`return context.requestConfirmation({...})`): the engine then saves a checkpoint with
   * `resume_data` and stops. On resume the node runs again with `context.resume` set.
   */
  requestConfirmation(request: ConfirmationRequest): PauseRequest;
  /** The registered actions (name, description, parameters, side effects), for tools.list. */
  listActions(): Array<{ name: string; description: string; parameters?: JsonSchema; side_effects: boolean }>;
  /** Writes the run's buffered events to the trace store now (the reviewer reads the current run from it). */
  flushEvents(): Promise<void>;
  /**
   * Registers work to do when the run ends (ending an MCP session): run once, before the run's
   * `done` event, whatever the outcome; a failure is ignored.
   */
  onRunEnd(cleanup: () => Promise<void>): void;
  /**
   * Runs another agent file of this host as a sub-run (`agent: {file: …}` in agent.*): `file` is
   * relative to the calling agent's folder and never leaves the host's root. The sub-run shares
   * this run's budgets and cancel signal, its events go into this run's trace with a `sub_run`
   * field, and its final state is returned; its failure throws a typed error naming both agents.
   * A host that gave no agent source refuses with FORBIDDEN.
   */
  runAgentFile(file: string, input: State): Promise<SubRunResult>;
}

/** What a sub-run returns: the agent's name, its rooted file path, its final state. */
export interface SubRunResult {
  agent: string;
  file: string;
  state: State;
}

// biome-ignore lint/suspicious/noExplicitAny: a registry holds definitions of every params type; `unknown` would not accept them
export interface ActionDefinition<Params = any> {
  name: string;
  description: string;
  /**
   * JSON Schema of the parameters (for tools.list, tool calling and validation). The loader checks
   * each node's `with:` keys against it: with `additionalProperties: false`, an unknown key is a
   * load error naming the closest known one (src/spec/closed-shape.ts, which also reads the
   * `x-tea-action-params` and `x-tea-provider` keywords of src/spec/parameter-shapes.ts).
   */
  parameters?: JsonSchema;
  /** True when running the action changes something outside the run. */
  sideEffects?: boolean;
  /**
   * Optional: validate and compile the raw `with:` params at agent load. When absent, every string
   * in `with:` is compiled as a template and rendered with the node's scope before `run`.
   * When present, `run` receives the prepared value and renders what it needs itself.
   */
  prepare?(params: Record<string, unknown>, compiler: ActionCompiler): Params;
  run(params: Params, context: ActionContext): Promise<unknown> | unknown;
}
