/**
 * isControlFlow: errors the reflection actions must never record as a failed attempt, because
 * they belong to the run, not to one candidate: a confirmation pause (the engine's PauseSignal),
 * cancellation, and an exhausted run budget.
 */
import { AgentError } from '../errors/agent-error.js';

/** True for a pause signal, CANCELLED, BUDGET_EXCEEDED, or any error after the run was aborted. */
export function isControlFlow(error: unknown, signal?: AbortSignal): boolean {
  if (signal?.aborted === true) return true;
  if (typeof error === 'object' && error !== null && (error as { isPauseSignal?: unknown }).isPauseSignal === true) return true;
  return AgentError.isInstance(error) && (error.code === 'CANCELLED' || error.code === 'BUDGET_EXCEEDED');
}

/** A one-line description of a failure, without stack or location prefix noise. */
export function describeFailure(error: unknown): string {
  if (AgentError.isInstance(error)) return `${error.message} (${error.code})`;
  if (error instanceof Error) return error.message;
  return String(error);
}
