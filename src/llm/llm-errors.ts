/**
 * The typed failures of a model call (docs/spec.md#42-llmcall-llmstream): `LLM_HTTP_<status>`, `LLM_TIMEOUT`,
 * `LLM_UNAVAILABLE`, `LLM_BAD_RESPONSE`. Messages name the endpoint (without credentials) and never
 * carry an API key: response bodies quoted in them pass through `redactSecrets` first.
 */
import { AgentError } from '../errors/agent-error.js';
import { redactSecrets } from './redact.js';
import { cutText } from '../util/cut-text.js';

/** How much of an error response body is quoted in the message. */
const QUOTED_BODY_LIMIT = 300;

/** A response that cannot be used: malformed JSON, no choices, a cut stream, a half tool call… */
export function badResponse(message: string, details: Record<string, unknown> = {}): AgentError {
  return new AgentError('LLM_BAD_RESPONSE', message, { details: { retryable: false, ...details } });
}

/** A non-2xx answer; 429 and 5xx are retryable. The body is quoted, redacted and shortened. */
export function httpError(status: number, url: string, body: string, secrets: readonly string[]): AgentError {
  const quoted = cutText(redactSecrets(body.trim(), secrets), QUOTED_BODY_LIMIT);
  const retryable = status === 429 || (status >= 500 && status <= 599);
  return new AgentError(
    `LLM_HTTP_${status}`,
    `the model server at ${url} answered HTTP ${status}${quoted === '' ? '' : `: ${quoted}`}`,
    { details: { status, url, retryable } },
  );
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
const INFRASTRUCTURE_CODES: ReadonlySet<string> = new Set(['LLM_UNAVAILABLE', 'LLM_TIMEOUT', 'LLM_BAD_RESPONSE', 'STORAGE_ERROR', 'CANCELLED', 'BUDGET_EXCEEDED']);

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

/** True when the error is one a retry may cure (429, 5xx, timeout, connection). */
export function isRetryable(error: unknown): boolean {
  return AgentError.isInstance(error) && error.details.retryable === true;
}
