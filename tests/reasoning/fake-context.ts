/**
 * A small fake ActionContext and ActionCompiler for unit tests of the reasoning actions: scripted
 * model responses, recorded LLM calls and events, a Map of actions, and a confirmation request
 * that returns a PauseRequest value (as the engine's does).
 */
import { Validator } from '@cfworker/json-schema';
import { AgentError, type ErrorCode } from '../../src/core/agent-error.js';
import type { ActionCompiler, ActionContext, ActionDefinition, CompiledSchema, LlmCallParams, ResumeInfo } from '../../src/core/action.js';
import type { LlmResponse } from '../../src/core/model-provider.js';
import type { CompiledValue } from '../../src/templates/types.js';
import { reasoningActions } from '../../src/reasoning/actions.js';
import { isPauseRequest, pauseRequest } from '../../src/actions/pause-request.js';

export type ScriptedReply = string | Partial<LlmResponse> | Error | ((params: LlmCallParams) => string | Partial<LlmResponse>);

export interface FakeOptions {
  responses?: ScriptedReply[];
  actions?: ActionDefinition[];
  role?: string;
  settings?: Record<string, unknown>;
  state?: Record<string, unknown>;
  memory?: Map<string, unknown>;
  resume?: ResumeInfo;
}

export { isPauseRequest };

export interface FakeContext extends ActionContext {
  llmCalls: LlmCallParams[];
  events: Array<{ type: string; data: Record<string, unknown>; ts: string }>;
}

export function createFakeContext(options: FakeOptions = {}): FakeContext {
  const responses = [...(options.responses ?? [])];
  const registry = new Map<string, ActionDefinition>();
  for (const action of [...reasoningActions(), ...(options.actions ?? [])]) registry.set(action.name, action);
  const context: FakeContext = {
    runId: 'run-test',
    agentName: 'test-agent',
    node: 'test-node',
    state: options.state ?? {},
    variables: {},
    settings: options.settings ?? {},
    signal: new AbortController().signal,
    role: options.role,
    memory: options.memory ?? new Map(),
    resume: options.resume,
    llmCalls: [],
    events: [],
    scope: (extra) => ({ state: context.state, variables: {}, settings: context.settings, ...extra }),
    emit(type, data) {
      context.events.push({ type, data, ts: new Date().toISOString() });
    },
    async callLlm(params) {
      context.llmCalls.push(structuredClone(params));
      const next = responses.shift();
      if (next === undefined) throw new AgentError('LLM_UNAVAILABLE', 'scripted responses exhausted');
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
    },
    async callAction(name, params) {
      const action = registry.get(name);
      if (action === undefined) throw new AgentError('UNKNOWN_ACTION', `unknown action ${name}`);
      let result: unknown;
      if (action.prepare === undefined) {
        result = await action.run(params, context);
      } else {
        // As the engine does: params are final values, so templates compile to literals.
        const compiler = { ...createFakeCompiler(options.actions ?? []), template: (value: unknown) => ({ source: value, isStatic: true, render: () => structuredClone(value) }) };
        const nested = { ...context, resume: undefined };
        result = await action.run(action.prepare(params, compiler), nested);
      }
      // As the engine does: an action called by another action cannot pause the run.
      if (isPauseRequest(result)) throw new AgentError('ACTION_FAILED', `action '${name}' asked for a confirmation, which an action called by another action cannot do`);
      return result;
    },
    requestConfirmation: pauseRequest,
    listActions: () => [...registry.values()].map((action) => ({ name: action.name, description: action.description, parameters: action.parameters, side_effects: action.sideEffects === true })),
    traceStore: undefined,
    flushEvents: async () => undefined,
  };
  return context;
}

/** A compiler resolving actions from the fake registry; templates are `{{ state.x }}` lookups only. */
export function createFakeCompiler(actions: ActionDefinition[] = [], settings: Record<string, unknown> = {}): ActionCompiler {
  const registry = new Map<string, ActionDefinition>();
  for (const action of [...reasoningActions(), ...actions]) registry.set(action.name, action);
  return {
    node: "test.yaml node 'test-node'",
    agentSettings: settings,
    template: (value) => fakeTemplate(value),
    lua: () => {
      throw new Error('lua not available in the fake compiler');
    },
    script: () => {
      throw new Error('no script sandbox in the fake compiler');
    },
    schema: (schema): CompiledSchema => compileFakeSchema(schema as Record<string, unknown>),
    action(name, field) {
      const action = registry.get(name);
      if (action === undefined) throw new AgentError('UNKNOWN_ACTION', `unknown action '${name}'`, { field });
      return action;
    },
    error: (message, field, code) => new AgentError((code ?? 'INVALID_PARAMS') as ErrorCode, message, { node: 'test-node', ...(field !== undefined ? { field } : {}) }),
  };
}

export function compileFakeSchema(schema: Record<string, unknown>): CompiledSchema {
  const validator = new Validator(schema as never, '7', false);
  return {
    schema,
    validate(instance) {
      const result = validator.validate(instance);
      return {
        valid: result.valid,
        errors: result.errors.map((error) => ({ message: error.error, path: error.instanceLocation.replace(/^#/, ''), dotted_path: '', keyword: error.keyword, type: 'schema' })),
      };
    },
  };
}

function fakeTemplate(value: unknown): CompiledValue {
  const render = (item: unknown, scope: Record<string, unknown>): unknown => {
    if (typeof item === 'string') {
      const whole = /^\{\{\s*state\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}$/.exec(item);
      if (whole !== null) return (scope['state'] as Record<string, unknown>)[whole[1]!];
      return item.replace(/\{\{\s*state\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g, (_m, key: string) => String((scope['state'] as Record<string, unknown>)[key] ?? ''));
    }
    if (Array.isArray(item)) return item.map((entry) => render(entry, scope));
    if (typeof item === 'object' && item !== null) return Object.fromEntries(Object.entries(item).map(([key, entry]) => [key, render(entry, scope)]));
    return item;
  };
  const isStatic = !JSON.stringify(value ?? null).includes('{{');
  return { source: value, isStatic, render: (scope) => render(structuredClone(value), scope) };
}

/** Prepares (at "load") and runs an action with the fakes, as the engine would. */
export async function runAction(name: string, params: Record<string, unknown>, context: FakeContext, extraActions: ActionDefinition[] = []): Promise<Record<string, unknown>> {
  const action = [...reasoningActions(), ...extraActions].find((candidate) => candidate.name === name);
  if (action === undefined) throw new Error(`no action ${name}`);
  const prepared = action.prepare ? action.prepare(params, createFakeCompiler(extraActions, context.settings as Record<string, unknown>)) : params;
  return (await action.run(prepared, context)) as Record<string, unknown>;
}
