/**
 * loadRunHistory: the earlier runs of the same agent from the trace store (newest first, at most
 * `limit`), reduced to per-node durations (for slow-node detection) and failures (for cross-run
 * patterns). Runs created after the reviewed run are left out, so a review is reproducible.
 */
import type { RunRecord, TraceStore } from '../../core/trace-store.js';
import type { PastRun } from './failure-patterns.js';
import { tasksFromEvents, type TaskExecution } from './task-executions.js';

export interface RunHistory {
  runs: PastRun[];
  /** node → median duration (ms) over earlier runs. */
  medians: Map<string, number>;
}

export async function loadRunHistory(store: TraceStore, current: RunRecord, limit: number): Promise<RunHistory> {
  const records: RunRecord[] = [];
  let cursor: string | undefined;
  while (records.length < limit) {
    const page = await store.listRuns({
      agent: current.agent,
      limit: Math.min(100, limit + 1),
      ...(cursor !== undefined ? { cursor } : {}),
    });
    for (const record of page.runs) {
      if (record.run_id === current.run_id || record.created_at > current.created_at) continue;
      if (records.length < limit) records.push(record);
    }
    if (page.cursor === undefined || page.runs.length === 0) break;
    cursor = page.cursor;
  }
  const durations = new Map<string, number[]>();
  const runs: PastRun[] = [];
  for (const record of records) {
    const tasks = tasksFromEvents(await store.readEvents(record.run_id));
    for (const task of tasks) {
      if (task.status === 'succeeded' && task.duration_ms !== undefined)
        durations.set(task.node, [...(durations.get(task.node) ?? []), task.duration_ms]);
    }
    runs.push(pastRun(record.run_id, record.status, tasks));
  }
  const medians = new Map<string, number>();
  for (const [node, values] of durations) medians.set(node, median(values));
  return { runs, medians };
}

export function pastRun(runId: string, status: string, tasks: readonly TaskExecution[]): PastRun {
  return {
    run_id: runId,
    status,
    failures: tasks
      .filter((task) => task.status === 'failed')
      .map((task) => ({
        node: task.node,
        message: task.error?.message ?? 'error',
        ...(task.error?.code !== undefined ? { code: task.error.code } : {}),
      })),
  };
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
