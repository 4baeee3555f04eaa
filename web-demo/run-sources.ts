/**
 * The agent source of each run, kept in localStorage (the trace has the events, not the file),
 * so a past run redraws its graph and a paused run can be resumed after a reload. Bounded to the
 * newest entries.
 */
const KEY = 'tea-edge.run-sources';
const MAX_ENTRIES = 40;

type Sources = { run_id: string; source: string; parent?: string }[];

function read(storage: Storage | undefined): Sources {
  try {
    const value = JSON.parse(storage?.getItem(KEY) ?? '[]') as unknown;
    return Array.isArray(value) ? (value as Sources) : [];
  } catch {
    return [];
  }
}

/** Remembers the agent source of a run (and the run it was started from, for time travel). */
export function rememberSource(storage: Storage | undefined, runId: string, source: string, parent?: string): void {
  const entries = read(storage).filter((entry) => entry.run_id !== runId);
  entries.push({ run_id: runId, source, ...(parent !== undefined ? { parent } : {}) });
  while (entries.length > MAX_ENTRIES) entries.shift();
  try {
    storage?.setItem(KEY, JSON.stringify(entries));
  } catch {
    // Quota: drop the oldest half and try once more.
    try {
      storage?.setItem(KEY, JSON.stringify(entries.slice(Math.floor(entries.length / 2))));
    } catch {
      // The run still works; only its graph will be missing in history.
    }
  }
}

/** The run a run was started from ("run from here"), when remembered. */
export function parentOf(storage: Storage | undefined, runId: string): string | undefined {
  return read(storage).find((entry) => entry.run_id === runId)?.parent;
}

/** The agent source of a run, when remembered. */
export function sourceOf(storage: Storage | undefined, runId: string): string | undefined {
  // A server run is remembered for its parent only (its source stays on the server): ''.
  return read(storage).find((entry) => entry.run_id === runId)?.source || undefined;
}
