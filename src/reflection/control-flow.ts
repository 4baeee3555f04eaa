/**
 * isControlFlow: errors the reflection actions must never record as a failed attempt, because
 * they belong to the run, not to one candidate: cancellation, an exhausted run budget, and every
 * infrastructure failure (the model server down, an HTTP error after retries, a timeout, a broken
 * stream, a replay mismatch, storage). A confirmation pause is a returned value (never thrown), so
 * it never reaches a catch. A model
 * that is down is never an "invalid attempt": the node ends with the typed error and its
 * `on_error` decides.
 */
import { AgentError } from '../core/agent-error.js';
import { isInfrastructureFailure } from '../llm/llm-errors.js';
import { messageOf } from '../util/message-of.js';

/** True for an infrastructure failure, or any error after the run was aborted. */
export function isControlFlow(error: unknown, signal?: AbortSignal): boolean {
  if (signal?.aborted === true) return true;
  return isInfrastructureFailure(error);
}

/** A one-line description of a failure, without stack or location prefix noise. */
export function describeFailure(error: unknown): string {
  if (AgentError.isInstance(error)) return `${error.message} (${error.code})`;
  return messageOf(error);
}
