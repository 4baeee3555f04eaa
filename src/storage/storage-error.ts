/** The error a store gives when its backend fails. */
import { AgentError } from '../core/agent-error.js';
import { messageOf } from '../util/message-of.js';

/**
 * `error` as a store's failure: an AgentError as it is (the store's own refusal, already coded),
 * anything else a `STORAGE_ERROR` reading `<failed>: <reason>` (the thrown message, never its
 * stack) with `details` and the original as its cause.
 * @example throw storageError(error, `cannot write '${file}' in ${description}`, { path: file });
 */
export function storageError(
  error: unknown,
  failed: string,
  details: Record<string, unknown> = {},
  reason = messageOf(error),
): AgentError {
  if (AgentError.isInstance(error)) return error;
  return new AgentError('STORAGE_ERROR', `${failed}: ${reason}`, { details, cause: error });
}
