/** "Did you mean" for misspelled names: the closest candidate within a small edit distance. */
import { editDistance } from './edit-distance.js';
import { cutText } from './cut-text.js';

/**
 * The candidate closest to `word`, when it is close enough to be a likely typo: the same word in
 * another case, or an edit distance of at most 2 (a quarter of the length for long words).
 */
export function closestName(word: string, candidates: Iterable<string>): string | undefined {
  const lower = word.toLowerCase();
  const limit = Math.max(2, Math.floor(word.length / 4));
  let best: { name: string; distance: number } | undefined;
  for (const candidate of candidates) {
    if (Math.abs(candidate.length - word.length) > limit) continue; // the distance is at least this
    const distance = candidate.toLowerCase() === lower ? 0 : editDistance(lower, candidate.toLowerCase());
    if (distance > limit || distance >= Math.max(word.length, candidate.length)) continue;
    if (best === undefined || distance < best.distance) best = { name: candidate, distance };
  }
  return best?.name;
}

/** `; did you mean `x`?` when a candidate is close, else `; known: a, b, c` (or '' with none). */
export function suggestionFor(word: string, candidates: readonly string[]): string {
  const close = closestName(word, candidates);
  if (close !== undefined) return `; did you mean \`${close}\`?`;
  return candidates.length > 0 ? `; known: ${candidates.join(', ')}` : '';
}

/** A name for a message: backquoted, and cut at 80 characters (a key may be any length). */
export function quoted(name: string): string {
  return `\`${cutText(name, 80)}\``;
}
