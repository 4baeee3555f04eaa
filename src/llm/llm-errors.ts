/**
 * The typed failures of a model call (docs/spec.md#42-llmcall-llmstream): `LLM_HTTP_<status>`, `LLM_TIMEOUT`,
 * `LLM_UNAVAILABLE`, `LLM_BAD_RESPONSE`. Messages name the endpoint (without credentials) and never
 * carry an API key: response bodies quoted in them pass through `redactSecrets` first.
 */
import { AgentError } from '../core/agent-error.js';
import { describeServerError, serverErrorMessageOfBody, serverErrorSentence } from './server-error.js';

/** A response that cannot be used: malformed JSON, no choices, a cut stream, a half tool call… */
export function badResponse(message: string, details: Record<string, unknown> = {}): AgentError {
  return new AgentError('LLM_BAD_RESPONSE', message, { details: { retryable: false, ...details } });
}

/**
 * Statuses a retry can cure: a request timeout, a conflict or "too early", rate limiting, and
 * server errors except 501 (Not Implemented: llama.cpp's "start it with --embeddings") and 505
 * (HTTP version): those answer the same every time.
 */
export function isRetryableStatus(status: number): boolean {
  if (status === 408 || status === 409 || status === 425 || status === 429) return true;
  return status >= 500 && status <= 599 && status !== 501 && status !== 505;
}

/** A non-2xx answer, quoting the server's own message (redacted, capped) and explaining it when recognised. */
export function httpError(status: number, url: string, body: string, secrets: readonly string[]): AgentError {
  const report = describeServerError(serverErrorMessageOfBody(body), secrets);
  const details: Record<string, unknown> = { status, url, retryable: isRetryableStatus(status) };
  if (report.reason !== undefined) details.reason = report.reason;
  return new AgentError(
    `LLM_HTTP_${status}`,
    `the model server at ${url} answered HTTP ${status}${serverErrorSentence(report)}`,
    { details },
  );
}

/**
 * An error the server reported inside a 200 answer (a stream's `error` payload or field, a body
 * that is only `{"error": …}`): LLM_BAD_RESPONSE with the server's message, not retried.
 */
export function serverReportedError(message: string, where: string, secrets: readonly string[]): AgentError {
  const report = describeServerError(message, secrets);
  const details: Record<string, unknown> = { server_error: true };
  if (report.reason !== undefined) details.reason = report.reason;
  return badResponse(`the model server reported an error ${where}${serverErrorSentence(report)}`, details);
}

/** No answer within the per-attempt timeout. */
export function timeoutError(url: string, timeoutMs: number): AgentError {
  return new AgentError('LLM_TIMEOUT', `the model server at ${url} did not answer within ${timeoutMs} ms`, {
    details: { url, timeout_ms: timeoutMs, retryable: true },
  });
}

/** The server could not be reached (refused, DNS, reset, or in a browser probably CORS). */
export function unavailableError(url: string, reason: string, details: Record<string, unknown> = {}): AgentError {
  return new AgentError('LLM_UNAVAILABLE', `could not reach the model server at ${url}: ${reason}`, {
    details: { url, retryable: true, ...details },
  });
}

/**
 * Codes that say the run's machinery failed, not the model's answer (docs/execution-model.md,
 * "Two kinds of failure"). Every `LLM_*` code is raised by the model client when the server could
 * not be reached, refused, timed out, or broke the protocol (a cut or malformed stream, a body
 * that is not a chat completion, a replay whose requests differ from the recording): the model's
 * text never produces one, except a tool call the model wrote badly in a complete response
 * (`details.model_output`). Storage, cancellation and budgets belong to the run as a whole.
 */
const INFRASTRUCTURE_CODES: ReadonlySet<string> = new Set([
  'LLM_UNAVAILABLE',
  'LLM_TIMEOUT',
  'LLM_BAD_RESPONSE',
  'STORAGE_ERROR',
  'CANCELLED',
  'BUDGET_EXCEEDED',
]);

/**
 * True for a failure that must end the node with its typed error instead of becoming a failed
 * attempt, a ReAct observation or a parsing fallback: the model server is unreachable, answered
 * an HTTP error after the retries, timed out, broke a stream, a replay mismatch, storage,
 * cancellation, an exhausted budget. Content failures (the model answered, but the answer does not
 * parse, fails a schema, or a judge rejects it) are not AgentErrors with these codes.
 */
export function isInfrastructureFailure(error: unknown): boolean {
  if (!AgentError.isInstance(error)) return false;
  // A complete response whose tool call the model wrote badly (arguments that are not a JSON
  // object, no function name) is the model's content, like an answer that does not parse.
  if (error.code === 'LLM_BAD_RESPONSE' && error.details.model_output === true) return false;
  return INFRASTRUCTURE_CODES.has(error.code) || error.code.startsWith('LLM_HTTP_');
}

/** True when the error is one a retry may cure (see isRetryableStatus; timeouts; no connection). */
export function isRetryable(error: unknown): boolean {
  return AgentError.isInstance(error) && error.details.retryable === true;
}
