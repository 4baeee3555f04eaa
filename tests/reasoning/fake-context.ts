/**
 * A small fake ActionCompiler for unit tests of the reasoning actions (templates are
 * `{{ state.x }}` lookups; no scripts), and `runAction`, which prepares and runs an action with it
 * and the test context of tea-edge/testing.
 */
import { Validator } from '@cfworker/json-schema';
import { AgentError, type ErrorCode } from '../../src/core/agent-error.js';
import type { ActionCompiler, ActionDefinition, CompiledSchema } from '../../src/core/action.js';
import type { CompiledValue } from '../../src/templates/types.js';
import { reasoningActions } from '../../src/reasoning/actions.js';
import type { TestActionContext } from '../../src/testing/test-action-context.js';

/** A compiler resolving actions from the fake registry; templates are `{{ state.x }}` lookups only. */
export function createFakeCompiler(
  actions: ActionDefinition[] = [],
  settings: Record<string, unknown> = {},
): ActionCompiler {
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
    error: (message, field, code) =>
      new AgentError((code ?? 'INVALID_PARAMS') as ErrorCode, message, {
        node: 'test-node',
        ...(field !== undefined ? { field } : {}),
      }),
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
        errors: result.errors.map((error) => ({
          message: error.error,
          path: error.instanceLocation.replace(/^#/, ''),
          dotted_path: '',
          keyword: error.keyword,
          type: 'schema',
        })),
      };
    },
  };
}

function fakeTemplate(value: unknown): CompiledValue {
  const render = (item: unknown, scope: Record<string, unknown>): unknown => {
    if (typeof item === 'string') {
      const whole = /^\{\{\s*state\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}$/.exec(item);
      if (whole !== null) return (scope['state'] as Record<string, unknown>)[whole[1]!];
      return item.replace(/\{\{\s*state\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g, (_m, key: string) =>
        String((scope['state'] as Record<string, unknown>)[key] ?? ''),
      );
    }
    if (Array.isArray(item)) return item.map((entry) => render(entry, scope));
    if (typeof item === 'object' && item !== null)
      return Object.fromEntries(Object.entries(item).map(([key, entry]) => [key, render(entry, scope)]));
    return item;
  };
  const isStatic = !JSON.stringify(value ?? null).includes('{{');
  return { source: value, isStatic, render: (scope) => render(structuredClone(value), scope) };
}

/** Prepares (at "load") and runs an action with the fakes, as the engine would. */
export async function runAction(
  name: string,
  params: Record<string, unknown>,
  context: TestActionContext,
  extraActions: ActionDefinition[] = [],
): Promise<Record<string, unknown>> {
  const action = [...reasoningActions(), ...extraActions].find((candidate) => candidate.name === name);
  if (action === undefined) throw new Error(`no action ${name}`);
  const prepared = action.prepare
    ? action.prepare(params, createFakeCompiler(extraActions, context.settings as Record<string, unknown>))
    : params;
  return (await action.run(prepared, context)) as Record<string, unknown>;
}
