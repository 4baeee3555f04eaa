/**
 * Run listing shared by the stores that keep run records in a flat collection (memory, file
 * directory, KV): the one ordering (newest first by `created_at`, then `run_id`, both descending),
 * the opaque cursor, and retention selection. A cursor names the last run of a page, so a page
 * starts strictly after it: deleting or adding runs between pages never repeats a run.
 */
import { AgentError } from '../core/agent-error.js';
import type { ListRunsOptions, RetentionPolicy, RunPage, RunRecord } from '../core/trace-store.js';

/** Default and largest page size of `listRuns`. */
export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 1000;

/** The position of a run in the listing order. */
export interface RunPosition {
  created_at: string;
  run_id: string;
}

/** Compares two runs newest first: later `created_at` first, then larger `run_id` first. */
export function compareRunsNewestFirst(left: RunPosition, right: RunPosition): number {
  if (left.created_at !== right.created_at) return left.created_at < right.created_at ? 1 : -1;
  if (left.run_id !== right.run_id) return left.run_id < right.run_id ? 1 : -1;
  return 0;
}

/** The page size asked for, clamped to 1…1000; a value that is not a number is INVALID_PARAMS. */
export function pageSize(options: ListRunsOptions = {}): number {
  const limit = options.limit ?? DEFAULT_PAGE_SIZE;
  if (typeof limit !== 'number' || Number.isNaN(limit)) {
    throw new AgentError('INVALID_PARAMS', `listRuns: limit must be a number, got ${String(limit)}`);
  }
  return Math.min(MAX_PAGE_SIZE, Math.max(1, Math.floor(limit)));
}

/** Encodes the position of the last run of a page as an opaque cursor. */
export function encodeCursor(position: RunPosition): string {
  return JSON.stringify([position.created_at, position.run_id]);
}

/** Decodes a cursor from `encodeCursor`; anything else is INVALID_PARAMS. */
export function decodeCursor(cursor: string): RunPosition {
  let parsed: unknown;
  try {
    parsed = JSON.parse(cursor);
  } catch {
    parsed = undefined;
  }
  if (!Array.isArray(parsed) || parsed.length !== 2 || typeof parsed[0] !== 'string' || typeof parsed[1] !== 'string') {
    throw new AgentError('INVALID_PARAMS', 'listRuns: the cursor is not one this store returned');
  }
  return { created_at: parsed[0], run_id: parsed[1] };
}

/**
 * One page of runs from an unordered collection of records: filtered by agent, sorted newest
 * first, starting after the cursor.
 *
 * @example
 * const page = listRunPage(records, { agent: 'triage', limit: 10 });
 * const next = page.cursor ? listRunPage(records, { agent: 'triage', limit: 10, cursor: page.cursor }) : undefined;
 */
export function listRunPage(records: Iterable<RunRecord>, options: ListRunsOptions = {}): RunPage {
  const limit = pageSize(options);
  const after = options.cursor !== undefined ? decodeCursor(options.cursor) : undefined;
  const matching: RunRecord[] = [];
  for (const record of records) {
    if (options.agent !== undefined && record.agent !== options.agent) continue;
    if (after !== undefined && compareRunsNewestFirst(record, after) <= 0) continue;
    matching.push(record);
  }
  matching.sort(compareRunsNewestFirst);
  const runs = matching.slice(0, limit);
  const last = runs[runs.length - 1];
  return matching.length > limit && last !== undefined ? { runs, cursor: encodeCursor(last) } : { runs };
}

/**
 * The run ids a retention policy removes: everything past the newest `maxRuns`, and every run
 * whose `updated_at` is older than `maxAgeMs` before `now`. A run with an unreadable
 * `updated_at` is kept (never delete on a guess), and so is a run recorded `running`: its host
 * may be writing it, or about to continue it after a restart.
 */
export function runsToRetire(
  records: Iterable<RunRecord>,
  policy: RetentionPolicy,
  now: number = Date.now(),
): string[] {
  const sorted = [...records].sort(compareRunsNewestFirst);
  const retired = new Set<string>();
  if (policy.maxRuns !== undefined) {
    const keep = Math.max(0, Math.floor(policy.maxRuns));
    for (const record of sorted.slice(keep)) retired.add(record.run_id);
  }
  if (policy.maxAgeMs !== undefined) {
    const oldestKept = now - policy.maxAgeMs;
    for (const record of sorted) {
      const updated = Date.parse(record.updated_at);
      if (!Number.isNaN(updated) && updated < oldestKept) retired.add(record.run_id);
    }
  }
  for (const record of sorted) if (record.status === 'running') retired.delete(record.run_id);
  return [...retired];
}
