/**
 * Waiting and cancellation with an AbortSignal, the same everywhere: a signal aborted with an
 * AgentError reason (a run's duration budget aborts with BUDGET_EXCEEDED) rejects with that
 * error; any other abort is CANCELLED.
 */
import { AgentError } from '../core/agent-error.js';

/** The error an aborted signal stands for. */
export function abortError(signal: AbortSignal): AgentError {
  return AgentError.isInstance(signal.reason) ? signal.reason : new AgentError('CANCELLED', 'the run was cancelled');
}

/** Throws the signal's error when it has aborted (before work starts, or between pieces of it). */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortError(signal);
}

/**
 * Waits `ms`, or rejects as soon as `signal` aborts (with `abortError(signal)`), so a long wait
 * never outlives a cancelled run or its budget.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortError(signal));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortError(signal!));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
