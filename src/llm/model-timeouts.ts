/**
 * How long a model call waits for a silent server, one rule for every request (whole answers,
 * streams, embeddings): the response headers must come within `first_token_timeout` (a model
 * loading, a long prompt read on a CPU, a whole answer being generated), then the body may pause
 * at most `timeout` between bytes. So a server hung before it answers frees the run after
 * `first_token_timeout`, one hung mid-body after `timeout`, and a slow model that answers late can
 * still start. A timed-out attempt is retried once at most (openai-client.ts).
 */
import type { LlmConnection } from '../core/model-provider.js';

/** The longest wait for the response headers (and a stream's first byte) when none is configured. */
export const DEFAULT_FIRST_TOKEN_TIMEOUT_MS = 120_000;
/** The longest silence between body bytes once the response started, when none is configured. */
export const DEFAULT_IDLE_TIMEOUT_MS = 60_000;

export interface AttemptTimeouts {
  /** Milliseconds to the response headers (for a stream: its first byte). */
  firstByteMs: number;
  /** Milliseconds of silence allowed between body bytes. */
  idleMs: number;
}

/**
 * The waits of one connection: an explicit `timeout` also bounds the first byte unless
 * `first_token_timeout` is given.
 *
 * @example
 * attemptTimeouts({ timeout_ms: 30_000 }); // { firstByteMs: 30000, idleMs: 30000 }
 */
export function attemptTimeouts(
  connection: Pick<LlmConnection, 'timeout_ms' | 'first_token_timeout_ms'>,
): AttemptTimeouts {
  return {
    firstByteMs: connection.first_token_timeout_ms ?? connection.timeout_ms ?? DEFAULT_FIRST_TOKEN_TIMEOUT_MS,
    idleMs: connection.timeout_ms ?? DEFAULT_IDLE_TIMEOUT_MS,
  };
}
