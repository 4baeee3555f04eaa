/**
 * `reviewRun` as the package entries export it: the reviewer (review-run.ts) is its own chunk,
 * loaded on the first call, as the `reflection.review` action loads it; a page that imports the
 * whole API but never reviews a run does not load it at start.
 */
import type { Review, ReviewRunOptions } from './review-run.js';

/** Reviews a finished run (review-run.ts, loaded on the first call). */
export async function reviewRun(options: ReviewRunOptions): Promise<Review> {
  const { reviewRun: review } = await import('./review-run.js');
  return review(options);
}
