/**
 * Normalises the sub-problems a model proposed and orders them by dependency (Kahn's algorithm):
 * ids default to the position (1, 2, …), duplicates and cycles are errors, dependencies on ids
 * that do not exist are dropped with a note. At most 20 sub-problems are kept.
 */
import { textOf } from '../util/text-of.js';
import { isPlainObject } from '../util/plain-object.js';

export const MAX_SUB_PROBLEMS = 20;

export interface SubProblem {
  /** The id as the model wrote it (number or string). */
  id: unknown;
  /** The id as a string, for lookups. */
  key: string;
  description: string;
  dependencies: string[];
  decompose: boolean;
  /** The item as the model returned it. */
  source: unknown;
}

export type Ordering = { ok: true; subProblems: SubProblem[]; notes: string[] } | { ok: false; error: string };

/** Checks and orders sub-problems; the returned list keeps the model's order. */
export function orderSubProblems(list: unknown): Ordering {
  const notes: string[] = [];
  const items = Array.isArray(list) ? list : [];
  if (items.length > MAX_SUB_PROBLEMS)
    notes.push(`only the first ${MAX_SUB_PROBLEMS} of ${items.length} sub-problems were kept`);
  const subProblems: SubProblem[] = [];
  const keys = new Set<string>();
  items.slice(0, MAX_SUB_PROBLEMS).forEach((item, index) => {
    const record = isPlainObject(item) ? item : {};
    const id =
      record['id'] !== undefined &&
      record['id'] !== null &&
      (typeof record['id'] === 'number' || typeof record['id'] === 'string')
        ? record['id']
        : index + 1;
    const dependencies = Array.isArray(record['dependencies'])
      ? record['dependencies'].map((dependency) => String(dependency))
      : [];
    subProblems.push({
      id,
      key: String(id),
      description: typeof record['description'] === 'string' ? record['description'] : textOf(item),
      dependencies,
      decompose: record['decompose'] === true,
      source: item,
    });
  });
  for (const subProblem of subProblems) {
    if (keys.has(subProblem.key)) return { ok: false, error: `Duplicate sub-problem id: ${subProblem.key}` };
    keys.add(subProblem.key);
  }
  for (const subProblem of subProblems) {
    const unknown = subProblem.dependencies.filter((dependency) => !keys.has(dependency));
    if (unknown.length > 0) {
      notes.push(`sub-problem ${subProblem.key}: unknown dependencies ${unknown.join(', ')} ignored`);
      subProblem.dependencies = subProblem.dependencies.filter((dependency) => keys.has(dependency));
    }
    subProblem.dependencies = [...new Set(subProblem.dependencies)];
  }
  // Kahn: repeatedly take the sub-problems whose dependencies are all placed.
  const placed = new Set<string>();
  let progress = true;
  while (progress && placed.size < subProblems.length) {
    progress = false;
    for (const subProblem of subProblems) {
      if (!placed.has(subProblem.key) && subProblem.dependencies.every((dependency) => placed.has(dependency))) {
        placed.add(subProblem.key);
        progress = true;
      }
    }
  }
  if (placed.size < subProblems.length) {
    const cyclic = subProblems.filter((subProblem) => !placed.has(subProblem.key)).map((subProblem) => subProblem.key);
    return { ok: false, error: `Dependency cycle among sub-problems: ${cyclic.join(', ')}` };
  }
  return { ok: true, subProblems, notes };
}

/** Sub-problems one `reason.decompose` run may accept over all its levels (default and ceiling). */
export const MAX_SUB_PROBLEMS_PER_RUN = 40;
