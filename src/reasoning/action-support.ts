/**
 * What the four reasoning actions share: load-time compilation of their `with:` parameters,
 * run-time rendering, the model call with per-call overrides, and the rule for failures (docs/spec.md#6-reasoning-seeds-003-004:
 * return `{error, success: false, reasoning_trace}` for content failures; a confirmation pause
 * and infrastructure failures — model server down, HTTP error, timeout, broken stream, replay
 * mismatch, storage, cancellation, an exhausted run budget — propagate and end the node).
 */
import { AgentError } from '../core/agent-error.js';
import { isInfrastructureFailure } from '../llm/llm-errors.js';
import type { ActionCompiler, ActionContext, LlmCallParams } from '../core/action.js';
import type { ChatMessage, LlmResponse } from '../core/model-provider.js';
import type { CompiledValue } from '../templates/types.js';
import type { TraceEntry } from './reasoning-trace.js';
import { messageOf } from '../util/message-of.js';

/** `with:` parameters compiled at load: each one a template. */
export type CompiledParams = Record<string, CompiledValue>;

/** Keys passed through to `context.callLlm` when given on the action. */
export const LLM_KEYS = [
  'model',
  'temperature',
  'max_tokens',
  'response_format',
  'provider',
  'api_base',
  'base_url',
  'api_key',
  'timeout',
  'first_token_timeout',
  'max_retries',
  'top_p',
  'seed',
  'stop',
  'scripted',
] as const;

/** Compiles every `with:` value as a template; `required` keys must be present. */
export function compileParams(
  raw: Record<string, unknown>,
  compiler: ActionCompiler,
  required: readonly string[],
): CompiledParams {
  for (const key of required) {
    if (raw[key] === undefined || raw[key] === null) throw compiler.error(`Missing required parameter: ${key}`, key);
  }
  const compiled: CompiledParams = {};
  for (const [key, value] of Object.entries(raw)) compiled[key] = compiler.template(value, key);
  return compiled;
}

/** The value of a parameter when it has no template syntax (so it can be checked at load). */
export function staticParam(compiled: CompiledParams, key: string): { known: boolean; value: unknown } {
  const entry = compiled[key];
  if (entry === undefined) return { known: true, value: undefined };
  return entry.isStatic ? { known: true, value: entry.source } : { known: false, value: undefined };
}

/** Renders every parameter with the node's scope. */
export function renderParams(compiled: CompiledParams, context: ActionContext): Record<string, unknown> {
  const scope = context.scope();
  const rendered: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(compiled)) rendered[key] = value.render(scope);
  return rendered;
}

/** The LLM options of an action call; `modelOverride` (e.g. critic_model) wins over `model`. */
export function llmOptions(params: Record<string, unknown>, modelOverride?: unknown): LlmCallParams {
  const options: Record<string, unknown> = {};
  for (const key of LLM_KEYS) if (params[key] !== undefined && params[key] !== null) options[key] = params[key];
  if (options['base_url'] !== undefined) {
    options['api_base'] ??= options['base_url'];
    delete options['base_url'];
  }
  if (typeof modelOverride === 'string' && modelOverride !== '') options['model'] = modelOverride;
  return options as LlmCallParams;
}

/** The model name a result reports: the call's, else settings.llm.model, else the response's. */
export function reportedModel(
  context: ActionContext,
  params: Record<string, unknown>,
  response?: LlmResponse,
): string | null {
  if (typeof params['model'] === 'string') return params['model'];
  const model = context.settings.llm?.model;
  if (typeof model === 'string') return model;
  return response?.model ?? null;
}

export type ModelOutcome = { ok: true; response: LlmResponse } | { ok: false; error: string; code: string };

/**
 * Calls the model. Infrastructure failures (server down, HTTP error after retries, timeout, broken
 * stream, replay mismatch, budgets, cancellation) are rethrown, so they end the node; an error
 * `recoverable` accepts (the ReAct auto mode probing for tool support) comes back as a value, as
 * does any other failure.
 */
export async function callModel(
  context: ActionContext,
  options: LlmCallParams,
  messages: ChatMessage[],
  label: string | { label: string; purpose: string },
  stream = false,
  recoverable?: (error: AgentError) => boolean,
): Promise<ModelOutcome> {
  try {
    const call = typeof label === 'string' ? { label } : label;
    const response = await context.callLlm({ ...options, messages }, stream ? { ...call, stream } : call);
    return { ok: true, response };
  } catch (error) {
    const agentError = AgentError.isInstance(error) ? error : undefined;
    if (agentError === undefined || recoverable === undefined || context.signal.aborted || !recoverable(agentError))
      rethrowControl(error);
    return { ok: false, error: agentError?.message ?? messageOf(error), code: agentError?.code ?? 'ACTION_FAILED' };
  }
}

/**
 * Rethrows what must end the node instead of becoming an error value: every infrastructure failure
 * (cancellation, budgets, storage, and a model server that is down, answers an HTTP error, times
 * out, breaks a stream or differs from a replay). A confirmation pause is a returned value, never
 * thrown, so it needs nothing here.
 */
export function rethrowControl(error: unknown): void {
  if (isInfrastructureFailure(error)) throw error;
  if (typeof error === 'object' && error !== null && 'name' in error && error.name === 'AbortError') throw error;
}

/** The failure shape of every reasoning action. */
export function failureResult(
  error: string,
  trace: TraceEntry[],
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return { ...extra, error, success: false, reasoning_trace: trace };
}

/** Reads a positive integer parameter (or a default); an invalid value is an error message. */
export function integerParam(
  value: unknown,
  name: string,
  fallback: number,
  minimum: number,
  maximum: number,
): number | string {
  if (value === undefined || value === null || value === '') return fallback;
  const number = typeof value === 'string' && /^\s*-?\d+\s*$/.test(value) ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isInteger(number) || number < minimum || number > maximum) {
    return `${name} must be an integer from ${minimum} to ${maximum} (got ${JSON.stringify(value)})`;
  }
  return number;
}

/** Checks a static integer parameter at load; templated values are checked when rendered. */
export function checkIntegerAtLoad(
  compiled: CompiledParams,
  compiler: ActionCompiler,
  name: string,
  minimum: number,
  maximum: number,
): void {
  const { known, value } = staticParam(compiled, name);
  if (!known) return;
  const checked = integerParam(value, name, 0, minimum, maximum);
  if (typeof checked === 'string') throw compiler.error(checked, name);
}
