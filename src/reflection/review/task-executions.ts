/**
 * tasksFromEvents: the node executions ("tasks" in seed 002) of one run, read from its events.
 * A visit starts at `node_start` (retries, `data.attempt > 1`, belong to the same visit) and
 * ends at `node_end` (success, unless the update holds a graceful `__error__`) or at an `error`
 * event for that node with no later `node_end` (failure). A visit with neither is incomplete.
 */
import type { AgentEvent } from '../../core/events.js';

export interface TaskExecution {
  /** `<node>#<n>`: the n-th visit of the node in the run. */
  task_id: string;
  node: string;
  status: 'succeeded' | 'failed' | 'incomplete';
  attempts: number;
  duration_ms?: number;
  error?: { code?: string; message: string };
  /** The state update the node produced (success only). */
  output?: unknown;
  started_seq: number;
}

export function tasksFromEvents(events: readonly AgentEvent[]): TaskExecution[] {
  const tasks: TaskExecution[] = [];
  const open = new Map<string, TaskExecution[]>();
  const visits = new Map<string, number>();
  const startedAt = new Map<TaskExecution, string>();
  for (const event of events) {
    const node = event.node;
    // A sub-run's node events sit under the calling node (sub_run field): they are not its visits.
    if (node === undefined || event.sub_run !== undefined) continue;
    const stack = open.get(node) ?? [];
    if (event.type === 'node_start') {
      const attempt = typeof event.data.attempt === 'number' ? event.data.attempt : 1;
      const current = stack[stack.length - 1];
      if (attempt > 1 && current !== undefined) {
        current.attempts = attempt;
        continue;
      }
      const visit = (visits.get(node) ?? 0) + 1;
      visits.set(node, visit);
      const task: TaskExecution = {
        task_id: `${node}#${visit}`,
        node,
        status: 'incomplete',
        attempts: 1,
        started_seq: event.seq,
      };
      tasks.push(task);
      startedAt.set(task, event.ts);
      stack.push(task);
      open.set(node, stack);
    } else if (event.type === 'node_end') {
      const task = stack.pop();
      if (task === undefined) continue;
      const update = event.data.update as Record<string, unknown> | undefined;
      const graceful =
        update !== undefined && typeof update === 'object' && update !== null
          ? (update.__error__ as { code?: string; message?: string } | undefined)
          : undefined;
      task.duration_ms =
        typeof event.data.duration_ms === 'number' ? event.data.duration_ms : elapsed(startedAt.get(task), event.ts);
      if (graceful === undefined) {
        task.status = 'succeeded';
        task.output = update;
        delete task.error;
      } else {
        task.status = 'failed';
        task.error = {
          ...(graceful.code !== undefined ? { code: graceful.code } : {}),
          message: String(graceful.message ?? 'error'),
        };
      }
    } else if (event.type === 'error') {
      const task = stack[stack.length - 1];
      if (task === undefined || event.data.fatal === true) continue;
      task.error = {
        ...(typeof event.data.code === 'string' ? { code: event.data.code } : {}),
        message: String(event.data.message ?? 'error'),
      };
      task.status = 'failed';
      task.duration_ms = elapsed(startedAt.get(task), event.ts);
    }
  }
  return tasks;
}

function elapsed(from: string | undefined, to: string): number | undefined {
  if (from === undefined) return undefined;
  const duration = Date.parse(to) - Date.parse(from);
  return Number.isFinite(duration) ? Math.max(0, duration) : undefined;
}
