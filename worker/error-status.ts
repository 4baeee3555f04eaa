/**
 * The one table from error codes to HTTP statuses, and the one error body shape
 * `{error: {code, message}}`. Only failures of the request itself use it: a run that starts and
 * then fails is answered 200 with `status: "failed"` and its error, like any other run result.
 */
import { AgentError, toAgentError, type ErrorCode } from '../src/errors/agent-error.js';

/** Codes the HTTP layer answers with, and their statuses. Anything else is a 500. */
export const ERROR_STATUS: Readonly<Record<string, number>> = {
  INPUT_INVALID: 400,
  INVALID_PARAMS: 400,
  STATE_INVALID: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  INPUT_TOO_LARGE: 413,
  INVALID_AGENT: 422,
  BUDGET_EXCEEDED: 429,
  CANCELLED: 499,
  INTERNAL: 500,
  NOT_IMPLEMENTED: 501,
  LLM_UNAVAILABLE: 502,
  LLM_BAD_RESPONSE: 502,
  STORAGE_ERROR: 503,
  LLM_TIMEOUT: 504,
};

/** The HTTP status for an error code (`LLM_HTTP_<n>` → 502, unknown → 500). */
export function statusOf(code: string): number {
  if (code.startsWith('LLM_HTTP_')) return 502;
  return ERROR_STATUS[code] ?? 500;
}

/** The JSON body of an error response. */
export interface ErrorBody {
  error: { code: string; message: string };
}

/** Turns anything thrown into the status and body to answer with. */
export function toErrorResponse(error: unknown): { status: number; body: ErrorBody } {
  const agentError = toAgentError(error, 'INTERNAL');
  return { status: statusOf(agentError.code), body: { error: { code: agentError.code, message: agentError.message } } };
}

/** The error response for a code and message: the body shape and the table's status. */
export function errorResponse(code: string, message: string): Response {
  return Response.json({ error: { code, message } } satisfies ErrorBody, { status: statusOf(code) });
}

/** An AgentError for the HTTP layer (a shorthand that keeps call sites short). */
export function httpError(code: ErrorCode, message: string): AgentError {
  return new AgentError(code, message);
}
