/**
 * Runs one node body (an action, Lua, sub-steps or nothing) and returns the state update it
 * produces (docs/spec.md#13-state): an object result is the update; any other value `v` becomes `{result: v}`;
 * with `output: k` the update is `{k: result}`. Updates must be JSON (STATE_INVALID otherwise).
 * An action that returns a PauseRequest ends the body there: the PauseRequest is returned instead
 * of an update, and the run loop pauses (later sub-steps do not run).
 */
import { isPauseRequest } from '../actions/pause-request.js';
import type { ActionContext, ResumeInfo, State } from '../core/action.js';
import { AgentError } from '../core/agent-error.js';
import type { CompiledValue } from '../templates/types.js';
import { isPlainObject, mergeShallow, toPlainJson } from '../util/safe-json.js';
import { createActionContext } from './action-context.js';
import type { BodyHost, BodyResult } from './body-host.js';
import type { CompiledBody } from './compiled-agent.js';
import { runDynamicParallel } from './dynamic-parallel.js';
import { runWhileLoop } from './while-loop.js';

export type { BodyHost, BodyResult } from './body-host.js';

/**
 * Not `async`: a body whose action answers synchronously (most do) returns its update without a
 * promise; callers `await` the result either way. A synchronous throw is the body's failure.
 */
export function executeBody(
  host: BodyHost,
  body: CompiledBody,
  node: string,
  state: State,
  resume?: ResumeInfo,
): BodyResult | Promise<BodyResult> {
  switch (body.kind) {
    case 'pass':
      return {};
    case 'lua': {
      const globals: Record<string, unknown> = { state, variables: host.agent.spec.variables };
      if (body.codeTemplate !== undefined) globals['code'] = String(body.codeTemplate.render(host.baseScope(state)));
      const result = body.lua.run(globals, {
        ...(host.luaInstructions !== undefined ? { budget: { instructions: host.luaInstructions } } : {}),
        onPrint: (line) => host.emit('log', { source: body.lua.language, message: line }, node),
        signal: host.signal,
        interrupt: () => host.checkDeadline(node),
      });
      if (isThenable(result))
        return Promise.resolve(result).then((value) =>
          value === null || value === undefined ? {} : toUpdate(value, undefined, node),
        );
      if (result === null || result === undefined) return {};
      return toUpdate(result, undefined, node);
    }
    case 'action': {
      const context = createActionContext(host, node, state, resume);
      let params: unknown = body.params;
      if (!body.prepared) {
        params = (body.params as CompiledValue).render(context.scope());
        if (!isPlainObject(params))
          throw new AgentError('INVALID_PARAMS', '`with:` must render to a mapping', { node });
      }
      const result = body.action.run(params, context);
      if (isThenable(result)) return Promise.resolve(result).then((value) => actionUpdate(body, value, context, node));
      return actionUpdate(body, result, context, node);
    }
    case 'steps':
      return runSteps(host, body.steps, node, state);
    case 'expression': {
      const value = body.value.render(host.baseScope(state));
      return { [body.outputKey]: toPlainJson(value, `node '${node}' expression`) ?? null };
    }
    case 'while_loop':
      return runWhileLoop(host, body, node, state, executeBody);
    case 'dynamic_parallel':
      return runDynamicParallel(host, body, node, state, executeBody);
  }
}

function actionUpdate(
  body: Extract<CompiledBody, { kind: 'action' }>,
  result: unknown,
  context: ActionContext,
  node: string,
): BodyResult {
  if (isPauseRequest(result)) return result;
  if (typeof body.output === 'object') {
    // TEA's output mapping: each value a template over `result`; undefined becomes "".
    const mapped = body.output.render(
      context.scope({ result: toPlainJson(result, `node '${node}' result`) }),
    ) as Record<string, unknown>;
    for (const key of Object.keys(mapped)) if (mapped[key] === undefined) mapped[key] = '';
    return toUpdate(mapped, undefined, node);
  }
  return toUpdate(result, body.output, node);
}

async function runSteps(host: BodyHost, steps: CompiledBody[], node: string, state: State): Promise<BodyResult> {
  const working: State = { ...state };
  const update: Record<string, unknown> = {};
  for (const step of steps) {
    const stepUpdate = await executeBody(host, step, node, working, undefined);
    if (isPauseRequest(stepUpdate)) return stepUpdate;
    mergeShallow(working, stepUpdate);
    mergeShallow(update, stepUpdate);
  }
  return update;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && 'then' in value && typeof value.then === 'function';
}

function toUpdate(result: unknown, output: string | undefined, node: string): Record<string, unknown> {
  const plain = toPlainJson(result, `node '${node}' result`);
  if (output !== undefined) return { [output]: plain ?? null };
  if (isPlainObject(plain)) return plain;
  return { result: plain ?? null };
}
