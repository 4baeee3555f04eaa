/**
 * findNonFinite: every number in the agent file that is not finite. YAML reads `.inf`, `-.inf`,
 * `.nan` and `1e400` as Infinity or NaN; `max_steps: .inf` would pass an integer check in some
 * validators and switch a budget off, and no such number survives JSON anyway.
 */
import type { Path } from './closed-shape.js';

export interface NonFinite {
  path: Path;
  /** How YAML spells it: `.inf`, `-.inf` or `.nan`. */
  text: string;
}

/** Enough for any report (a load lists 50 problems); the walk stops there. */
const MAX_FOUND = 100;

export function findNonFinite(value: unknown, path: Path = [], found: NonFinite[] = []): NonFinite[] {
  if (found.length >= MAX_FOUND) return found;
  if (typeof value === 'number') {
    if (!Number.isFinite(value))
      found.push({
        path,
        text: Number.isNaN(value) ? '.nan' : value > 0 ? '.inf (or too large)' : '-.inf (or too large)',
      });
  } else if (Array.isArray(value)) {
    value.forEach((item, index) => {
      findNonFinite(item, path.concat(index), found);
    });
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) findNonFinite(item, path.concat(key), found);
  }
  return found;
}
