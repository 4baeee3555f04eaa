/**
 * One attempt's abort controller: aborts when the caller's signal aborts (cancellation) or when the
 * attempt's timer runs out (timeout), and remembers which of the two it was. The timer measures
 * silence: `touch()` restarts it whenever bytes arrive, with the next gap's length when given (a
 * stream waits `first_token_timeout` for its first byte, then `timeout` between bytes).
 */

export interface AttemptController {
  readonly signal: AbortSignal;
  /** True when the timer, not the caller, aborted the attempt. */
  readonly timedOut: boolean;
  /** The length of the timer that ran out (or runs now), in milliseconds. */
  readonly waitedMs: number;
  /** Restarts the timer (the server made progress), for `nextMs` when given. */
  touch(nextMs?: number): void;
  /** Stops the timer and unhooks from the caller's signal. */
  dispose(): void;
}

export function createAttemptController(outer: AbortSignal | undefined, timeoutMs: number): AttemptController {
  const controller = new AbortController();
  let timedOut = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let current = timeoutMs;
  const onOuterAbort = (): void => controller.abort(outer?.reason);
  const arm = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new DOMException('model call timed out', 'TimeoutError'));
    }, current);
  };
  if (outer?.aborted) controller.abort(outer.reason);
  else outer?.addEventListener('abort', onOuterAbort, { once: true });
  arm();
  return {
    signal: controller.signal,
    get timedOut() {
      return timedOut;
    },
    get waitedMs() {
      return current;
    },
    touch(nextMs) {
      if (nextMs !== undefined) current = nextMs;
      if (!controller.signal.aborted) arm();
    },
    dispose() {
      if (timer !== undefined) clearTimeout(timer);
      outer?.removeEventListener('abort', onOuterAbort);
    },
  };
}
