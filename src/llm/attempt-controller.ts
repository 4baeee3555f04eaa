/**
 * One attempt's abort controller: aborts when the caller's signal aborts (cancellation) or when the
 * attempt's timer runs out (timeout), and remembers which of the two it was. For streams the timer
 * is an idle timer, restarted by `touch()` whenever bytes arrive.
 */

export interface AttemptController {
  readonly signal: AbortSignal;
  /** True when the timer, not the caller, aborted the attempt. */
  readonly timedOut: boolean;
  /** Restarts the timer (a stream made progress). */
  touch(): void;
  /** Stops the timer and unhooks from the caller's signal. */
  dispose(): void;
}

export function createAttemptController(outer: AbortSignal | undefined, timeoutMs: number): AttemptController {
  const controller = new AbortController();
  let timedOut = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const onOuterAbort = (): void => controller.abort(outer?.reason);
  const arm = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new DOMException('model call timed out', 'TimeoutError'));
    }, timeoutMs);
  };
  if (outer?.aborted) controller.abort(outer.reason);
  else outer?.addEventListener('abort', onOuterAbort, { once: true });
  arm();
  return {
    signal: controller.signal,
    get timedOut() {
      return timedOut;
    },
    touch() {
      if (!controller.signal.aborted) arm();
    },
    dispose() {
      if (timer !== undefined) clearTimeout(timer);
      outer?.removeEventListener('abort', onOuterAbort);
    },
  };
}
