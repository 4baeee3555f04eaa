/**
 * runStep: runs a prepared generator or corrector once. An action step renders its parameters
 * with the node's scope where `state` is the loop state (so templates can read
 * `state.reflection_errors`, `state.reflection_output`, …; `output` and `iteration` are also
 * top-level names) and calls the action through the engine (settings.llm defaults, budgets and
 * events apply). A Lua step runs with globals `state`, `variables`, `output`, `iteration`
 * (its `state.reflection_history` holds the latest 10 attempts).
 */
import type { ActionContext, State } from '../core/action.js';
import { AgentError } from '../core/agent-error.js';
import type { ScriptBudget } from '../core/script-sandbox.js';
import type { PreparedStep } from './reflection-types.js';
import { isPlainObject } from '../util/plain-object.js';

export async function runStep(
  step: PreparedStep,
  context: ActionContext,
  loopState: State,
  iteration: number,
  field: string,
  onRendered?: (params: Record<string, unknown>) => void,
): Promise<unknown> {
  const output = loopState.reflection_output;
  if (step.kind === 'lua' && step.lua.language === 'python') {
    // TEA's Python generator/corrector form (a promise: Python runs in another thread or process).
    return step.lua.run(
      { state: loopState, variables: context.variables, wrapper: 'reflection' },
      { signal: context.signal, onPrint: (message) => context.emit('log', { source: 'python', message }) },
    );
  }
  if (step.kind === 'lua') {
    const budget = luaBudgetOf(context);
    return step.lua.run(
      { state: luaState(loopState), variables: context.variables, output: output ?? null, iteration },
      { signal: context.signal, ...(budget === undefined ? {} : { budget }) },
    );
  }
  const params = step.params.render(context.scope({ state: loopState, output, iteration }));
  if (!isPlainObject(params)) {
    throw new AgentError('INVALID_PARAMS', `\`${field}\` parameters must render to a mapping`, {
      node: context.node,
      field,
    });
  }
  onRendered?.(params as Record<string, unknown>);
  return context.callAction(step.action, params as Record<string, unknown>, { state: loopState });
}

/** How many of the latest attempts Lua sees in `state.reflection_history`. */
export const LUA_HISTORY_LIMIT = 10;

/**
 * The loop state as Lua sees it: the same, but `reflection_history` holds only the latest
 * attempts, because the whole state is converted into Lua tables on every call and a long loop
 * would otherwise pay for its full history each time.
 */
export function luaState(loopState: State, extra: Record<string, unknown> = {}): State {
  const history = loopState.reflection_history;
  const recent =
    Array.isArray(history) && history.length > LUA_HISTORY_LIMIT ? history.slice(-LUA_HISTORY_LIMIT) : history;
  return { ...loopState, reflection_history: recent, ...extra };
}

/** The agent's `settings.lua.instructions`, when set. */
export function luaBudgetOf(context: ActionContext): ScriptBudget | undefined {
  const lua = context.settings.lua;
  return typeof lua?.instructions === 'number' ? { instructions: lua.instructions } : undefined;
}
