/**
 * The one table from error codes to HTTP statuses, and the one error body shape
 * `{error: {code, message, file?, line?, column?, node?, field?}}` (the message is text only; the
 * place is in the fields). A request that fails answers that shape. A run that starts and then
 * fails is answered, as JSON, with its whole result (`status: "failed"`, `error: {code, message}`,
 * state) and the status of its error code (`statusOfRun`), so `response.ok` is false and the body
 * still has the error shape; over SSE the 200 headers are sent before the outcome is known, and
 * the `done` event carries it.
 */
import type { EventError } from '../src/core/events.js';
import { AgentError, toAgentError, type AgentErrorOptions, type ErrorCode } from '../src/core/agent-error.js';

/** Codes the HTTP layer answers with, and their statuses. Anything else is a 500. */
export const ERROR_STATUS: Readonly<Record<string, number>> = {
  INPUT_INVALID: 400,
  INVALID_PARAMS: 400,
  STATE_INVALID: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  INPUT_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  INVALID_AGENT: 422,
  // Load errors: the agent, not the request, is wrong.
  UNKNOWN_ACTION: 422,
  UNKNOWN_TOOL: 422,
  UNKNOWN_PROVIDER: 422,
  UNSUPPORTED_LANGUAGE: 422,
  UNSUPPORTED_NODE_TYPE: 422,
  LUA_SYNTAX: 422,
  SCHEMA_INVALID: 422,
  // Not 429: a run stopped by its own budget must not look like a rate limit clients retry.
  BUDGET_EXCEEDED: 422,
  CANCELLED: 499,
  INTERNAL: 500,
  NOT_IMPLEMENTED: 501,
  LLM_UNAVAILABLE: 502,
  LLM_BAD_RESPONSE: 502,
  STORAGE_ERROR: 503,
  OVERLOADED: 503,
  LLM_TIMEOUT: 504,
};

/** The HTTP status for an error code (`LLM_HTTP_<n>` → 502, unknown → 500). */
export function statusOf(code: string): number {
  if (code.startsWith('LLM_HTTP_')) return 502;
  return ERROR_STATUS[code] ?? 500;
}

/**
 * The HTTP status of a run result answered as JSON: 200 for a completed or interrupted run, the
 * status of its error code for a failed or cancelled one (a failed run never looks like success).
 */
export function statusOfRun(result: { status: string; error?: { code: string } }): number {
  if (result.status !== 'failed' && result.status !== 'cancelled') return 200;
  return statusOf(result.error?.code ?? 'INTERNAL');
}

/**
 * The JSON body of an error response. `details.errors` is there when the error lists several
 * problems (agents that failed to load: every problem of every file, the load-error contract).
 */
export interface ErrorBody {
  error: Omit<ErrorFields, 'details'> & { details?: { errors: unknown[] } };
}

/** An error's code, text and place, as an error body and a run's `error` carry them. */
type ErrorFields = EventError;

const PLACE_KEYS = ['file', 'line', 'column', 'node', 'field'] as const;

/** Turns anything thrown into the status and body to answer with. */
export function toErrorResponse(error: unknown): { status: number; body: ErrorBody } {
  const agentError = toAgentError(error, 'INTERNAL');
  return { status: statusOf(agentError.code), body: { error: bodyFields(agentError.toJSON()) } };
}

/** The error response for a code and message (and listed problems): the body shape and the table's status. */
export function errorResponse(code: string, message: string, details?: ErrorBody['error']['details']): Response {
  return errorJsonResponse({ code, message, ...(details !== undefined ? { details } : {}) });
}

/** The error response for an error as JSON (its place kept as fields; of its details only the problem list). */
export function errorJsonResponse(error: ErrorFields): Response {
  const body: ErrorBody = { error: bodyFields(error) };
  return Response.json(body, { status: statusOf(error.code) });
}

function bodyFields(error: ErrorFields): ErrorBody['error'] {
  const fields: ErrorBody['error'] = { code: error.code, message: error.message };
  for (const key of PLACE_KEYS) if (error[key] !== undefined) Object.assign(fields, { [key]: error[key] });
  const problems = error.details?.['errors'];
  if (Array.isArray(problems) && problems.length > 0) fields.details = { errors: problems };
  return fields;
}

/** An AgentError for the HTTP layer (a shorthand that keeps call sites short). */
export function httpError(code: ErrorCode, message: string, options?: AgentErrorOptions): AgentError {
  return new AgentError(code, message, options);
}
