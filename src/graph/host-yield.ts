/**
 * Letting the host breathe: a run that works for a while without waiting on anything (a
 * `while_loop` of Lua or template bodies, a long chain of quick nodes) hands the event loop back
 * to its host between steps, so one busy run cannot keep a server from answering `/health`, a
 * cancel or the other runs. Portable: a zero-delay timer (every runtime has one), taken only after
 * YIELD_AFTER_MS of work since the last one, so a quick run never pays for it.
 *
 * One `hostYield()` may be shared by all the runs of a host (RunOptions.breathe): the first run to
 * pass YIELD_AFTER_MS since the last turn yields, and every other run yields at its next step, until
 * a turn has passed; so busy runs together hold the event loop for about YIELD_AFTER_MS plus one
 * step each, where runs each with their own would hold it YIELD_AFTER_MS each.
 *
 * (On Workers the clock stands still while code runs, so no yield is ever due there: an isolate
 * serves one request's run, and its CPU limit is the guard.)
 */

/** Milliseconds of work after which a run lets its host's event loop run. */
export const YIELD_AFTER_MS = 8;

/**
 * A function to await between steps: it resolves at once, or after one turn of the event loop
 * when YIELD_AFTER_MS passed since the last turn.
 *
 * @example
 * const breathe = hostYield();
 * for (const item of items) { work(item); await breathe(); }
 */
export function hostYield(clock: () => number = Date.now): () => Promise<void> {
  let since = clock();
  return async () => {
    if (clock() - since < YIELD_AFTER_MS) return;
    await new Promise<void>((resolve) => setTimeout(resolve, 0));
    since = clock();
  };
}
