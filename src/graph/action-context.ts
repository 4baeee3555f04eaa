/** Builds the ActionContext a node's action runs with (see src/actions/types.ts). */
import type { ActionContext, ActionDefinition, LlmCallOptions, LlmCallParams, ResumeInfo, State } from '../actions/types.js';
import { AgentError } from '../errors/agent-error.js';
import type { EventType } from '../events/event.js';
import type { LlmResponse } from '../llm/types.js';
import type { TraceStore } from '../storage/trace-store.js';
import type { TemplateScope } from '../templates/types.js';
import { createActionCompiler } from './compile-agent.js';
import type { CompiledAgent } from './compiled-agent.js';
import { PauseSignal } from './pause-signal.js';

/** What the run session shares with every context it builds. */
export interface ContextHost {
  readonly agent: CompiledAgent;
  readonly runId: string;
  readonly signal: AbortSignal;
  readonly role: string | undefined;
  readonly memory: Map<string, unknown>;
  readonly traceStore: TraceStore | undefined;
  baseScope(state: State): TemplateScope;
  emit(type: EventType, data: Record<string, unknown>, node: string): void;
  callLlm(params: LlmCallParams, options: LlmCallOptions | undefined, node: string): Promise<LlmResponse>;
}

export function createActionContext(host: ContextHost, node: string, state: State, resume?: ResumeInfo): ActionContext {
  const { agent } = host;
  const context: ActionContext = {
    runId: host.runId,
    agentName: agent.name,
    node,
    state,
    variables: agent.spec.variables,
    settings: agent.spec.settings,
    signal: host.signal,
    role: host.role,
    memory: host.memory,
    resume,
    traceStore: host.traceStore,
    scope(extra) {
      const scope = host.baseScope(state);
      return extra === undefined ? scope : { ...scope, ...extra };
    },
    emit(type, data) {
      host.emit(type, data, node);
    },
    callLlm(params, options) {
      return host.callLlm(params, options, node);
    },
    async callAction(name, params, options) {
      if (host.signal.aborted) throw new AgentError('CANCELLED', 'the run was cancelled', { node });
      const action: ActionDefinition = agent.registry.resolve(name);
      const nested = createActionContext(host, node, options?.state ?? state, undefined);
      if (action.prepare === undefined) return action.run(params, nested);
      const nodeSpec = agent.nodes.get(node)?.spec;
      const compiler = createActionCompiler(agent.spec, { name: node }, agent.registry, { ...agent.spec.schemas }, nodeSpec?.path ?? []);
      return action.run(action.prepare(params, compiler), nested);
    },
    requestConfirmation(request) {
      throw new PauseSignal(request);
    },
    listActions() {
      return agent.registry.list().map((action) => ({
        name: action.name,
        description: action.description,
        ...(action.parameters !== undefined ? { parameters: action.parameters } : {}),
        side_effects: action.sideEffects === true,
      }));
    },
  };
  return context;
}
