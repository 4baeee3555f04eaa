/**
 * IndexedDB failures as STORAGE_ERROR: the DOMException's name (QuotaExceededError, AbortError,
 * VersionError, …) goes into `details.reason` and the message says what was being done.
 */
import { AgentError } from '../../src/host-storage.js';

/** Wraps an IndexedDB failure; AgentErrors pass through. */
export function idbStorageError(error: unknown, action: string, details: Record<string, unknown> = {}): AgentError {
  if (AgentError.isInstance(error)) return error;
  const name = (error as { name?: unknown } | null)?.name;
  const reason = typeof name === 'string' ? name : 'UnknownError';
  const explanation =
    reason === 'QuotaExceededError'
      ? 'the browser storage quota is exhausted (free space or delete old runs)'
      : reason === 'AbortError'
        ? 'the transaction was aborted'
        : error instanceof Error && error.message !== ''
          ? error.message
          : reason;
  return new AgentError('STORAGE_ERROR', `IndexedDB: cannot ${action}: ${explanation}`, {
    details: { reason, ...details },
    cause: error,
  });
}
