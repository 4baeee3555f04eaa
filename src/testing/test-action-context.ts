/**
 * An ActionContext for unit tests of one action (published at `tea-edge/testing`): scripted model
 * replies, recorded model calls and events, the built-in actions plus the test's own for
 * `callAction`, and a confirmation request that returns a PauseRequest value, as the engine's
 * context does. Whatever the test does not give is refused with the typed error a host without it
 * gives (no agent files: FORBIDDEN; no correction nodes: INVALID_PARAMS).
 *
 * @example
 *   const context = createTestActionContext({ responses: ['{"answer": 4}'], state: { q: '2 + 2?' } });
 *   const result = await myAction.run({ prompt: 'hi' }, context);
 *   expect(context.llmCalls).toHaveLength(1);
 */
import { isPauseRequest, pauseRequest } from '../actions/pause-request.js';
import { createActionRegistry } from '../builtins.js';
import type {
  ActionContext,
  ActionDefinition,
  EmbedCallParams,
  EmbedResult,
  LlmCallParams,
  ResumeInfo,
  State,
  SubRunResult,
} from '../core/action.js';
import type { AgentSettings } from '../core/agent-settings.js';
import { AgentError } from '../core/agent-error.js';
import type { EventData, EventType } from '../core/events.js';
import type { FileStore } from '../core/file-store.js';
import type { LlmResponse } from '../core/model-provider.js';
import type { TraceStore } from '../core/trace-store.js';
import { createActionCompiler } from '../graph/compile-agent.js';
import type { AgentSpec } from '../spec/agent-spec.js';

/** One model reply: its text, part of a response, an Error to throw, or a function of the call. */
export type TestModelReply =
  | string
  | Partial<LlmResponse>
  | Error
  | ((params: LlmCallParams) => string | Partial<LlmResponse>);

export interface TestActionContextOptions {
  /** Replies to `callLlm`, used in order; a call after the last fails with LLM_UNAVAILABLE. */
  responses?: TestModelReply[];
  /** Actions besides the built-ins, for `callAction` and `listActions` (a same-named one replaces the built-in). */
  actions?: ActionDefinition[];
  runId?: string;
  agentName?: string;
  node?: string;
  state?: State;
  variables?: Record<string, unknown>;
  settings?: AgentSettings;
  /** Secrets visible to templates as `secrets.*`. */
  secrets?: Record<string, string>;
  role?: string;
  memory?: Map<string, unknown>;
  resume?: ResumeInfo;
  signal?: AbortSignal;
  files?: FileStore;
  traceStore?: TraceStore;
  /** Answers `embed`; without it `embed` fails with LLM_UNAVAILABLE. */
  embed?: (params: EmbedCallParams) => EmbedResult | Promise<EmbedResult>;
  /** Node bodies `runNode` can run, by name (retry.loop's correction node). */
  nodes?: Record<string, (state: State) => Record<string, unknown> | Promise<Record<string, unknown>>>;
  /** Answers `runAgentFile`; without it sub-runs are refused with FORBIDDEN, as by a host with no agent source. */
  runAgentFile?: (file: string, input: State) => SubRunResult | Promise<SubRunResult>;
}

/** A recorded `emit`. */
export interface TestEvent {
  type: EventType;
  data: Record<string, unknown>;
  node: string;
  ts: string;
}

export interface TestActionContext extends ActionContext {
  /** Every `callLlm` request, copied, in order. */
  readonly llmCalls: LlmCallParams[];
  /** Every event emitted, in order (nested actions' included). */
  readonly events: TestEvent[];
  /** Runs the work registered with `onRunEnd`, as the engine does when a run ends. */
  endRun(): Promise<void>;
}

export function createTestActionContext(options: TestActionContextOptions = {}): TestActionContext {
  const responses = [...(options.responses ?? [])];
  const registry = createActionRegistry(options.actions ?? []);
  const settings = options.settings ?? {};
  const variables = options.variables ?? {};
  const endHooks: Array<() => Promise<void>> = [];
  const node = options.node ?? 'test-node';
  const runId = options.runId ?? 'test-run';
  const memory = options.memory ?? new Map<string, unknown>();
  const signal = options.signal ?? new AbortController().signal;
  let calls = 0;

  const make = (state: State, resume: ResumeInfo | undefined): TestActionContext => {
    const context: TestActionContext = {
      runId,
      agentName: options.agentName ?? 'test-agent',
      node,
      state,
      variables,
      settings,
      signal,
      role: options.role,
      memory,
      resume,
      idempotencyKey: `${runId}:${node}:1`,
      traceStore: options.traceStore,
      files: options.files,
      llmCalls,
      events,
      endRun,
      scope: (extra) => ({
        state: context.state,
        variables,
        settings,
        secrets: options.secrets ?? {},
        env: {},
        ...extra,
      }),
      emit<T extends EventType>(type: T, data: EventData<T>) {
        events.push({ type, data: data as Record<string, unknown>, node, ts: new Date().toISOString() });
      },
      async callLlm(params) {
        llmCalls.push(structuredClone(params));
        return replyTo(params, responses.shift());
      },
      async embed(params) {
        if (options.embed === undefined)
          throw new AgentError(
            'LLM_UNAVAILABLE',
            'this test context has no embeddings (createTestActionContext({ embed }))',
          );
        return options.embed(params);
      },
      async runNode(name, nodeState) {
        const body = options.nodes?.[name];
        if (body === undefined)
          throw new AgentError(
            'INVALID_PARAMS',
            `there is no node '${name}' in this test context (createTestActionContext({ nodes }))`,
            { details: { node: name } },
          );
        return body(nodeState);
      },
      async runAgentFile(file, input) {
        if (options.runAgentFile === undefined)
          throw new AgentError('FORBIDDEN', 'this host runs no agent files as sub-runs', { field: 'agent' });
        return options.runAgentFile(file, input);
      },
      async callAction(name, params, callOptions) {
        const action = registry.resolve(name);
        const nested = make(callOptions?.state ?? context.state, undefined);
        const result = await action.run(
          action.prepare === undefined ? params : action.prepare(params, calledActionCompiler()),
          nested,
        );
        // As in the engine: only the node's own action can pause the run.
        if (isPauseRequest(result))
          throw new AgentError(
            'ACTION_FAILED',
            `action '${name}' asked for a confirmation, which an action called by another action cannot do`,
            { node },
          );
        return result;
      },
      requestConfirmation: pauseRequest,
      listActions: () =>
        registry.list().map((action) => ({
          name: action.name,
          description: action.description,
          ...(action.parameters !== undefined ? { parameters: action.parameters } : {}),
          side_effects: action.sideEffects === true,
        })),
      flushEvents: async () => {
        await options.traceStore?.flush(runId);
      },
      onRunEnd(cleanup) {
        endHooks.push(cleanup);
      },
    };
    return context;
  };

  const llmCalls: LlmCallParams[] = [];
  const events: TestEvent[] = [];
  const endRun = async () => {
    await Promise.allSettled(endHooks.splice(0).map((cleanup) => cleanup()));
  };
  const replyTo = (params: LlmCallParams, next: TestModelReply | undefined): LlmResponse => {
    calls += 1;
    if (next === undefined) throw new AgentError('LLM_UNAVAILABLE', `scripted responses exhausted at call ${calls}`);
    if (next instanceof Error) throw next;
    const reply = typeof next === 'function' ? next(params) : next;
    const response = typeof reply === 'string' ? { content: reply } : reply;
    return {
      content: response.content ?? '',
      usage: response.usage ?? { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      model: response.model ?? 'scripted',
      finish_reason: response.finish_reason ?? 'stop',
      ...(response.tool_calls !== undefined ? { tool_calls: response.tool_calls } : {}),
    };
  };
  // Params handed to a called action are final values (often a model's tool arguments): as in the
  // engine, its templates are literals, never rendered.
  const calledActionCompiler = () => {
    const compiler = createActionCompiler(
      testSpec(options.agentName ?? 'test-agent', settings, variables),
      { name: node },
      registry,
      {},
      [],
    );
    compiler.template = (value) => ({ source: value, isStatic: true, render: () => structuredClone(value) });
    return compiler;
  };
  return make(options.state ?? {}, options.resume);
}

/** The agent a test context's compiler reports errors for: no file, no nodes, the test's settings. */
function testSpec(name: string, settings: AgentSettings, variables: Record<string, unknown>): AgentSpec {
  return {
    name,
    file: 'test.yaml',
    initialState: {},
    variables,
    schemas: {},
    settings,
    limits: { max_steps: 100 },
    nodes: [],
    edges: [],
    interruptBefore: [],
    interruptAfter: [],
    raiseExceptions: false,
    warnings: [],
    positionOf: () => undefined,
    contentLineOf: () => undefined,
  };
}
