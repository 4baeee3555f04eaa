/**
 * Failure patterns (seed 002's FailurePattern): `repeated_errors` (the same error category more
 * than once), `sequential_failures` (two or more failed executions in a row) and
 * `low_success_rate` (below `min_success_rate`), within one run and across the stored runs of the
 * same agent.
 */
import type { TaskEvaluation } from './evaluate-task.js';
import { categorizeError } from './error-category.js';

export interface FailurePattern {
  pattern_type: 'repeated_errors' | 'sequential_failures' | 'low_success_rate';
  description: string;
  occurrences: number;
  affected_tasks: string[];
  suggested_fix: string | null;
  detected_at: string;
  /** `run` for patterns inside the reviewed run, `history` for patterns across stored runs. */
  scope: 'run' | 'history';
}

/** Patterns inside one run's task evaluations. */
export function runPatterns(
  tasks: readonly TaskEvaluation[],
  successRate: number,
  minSuccessRate: number,
  now: string,
): FailurePattern[] {
  const patterns: FailurePattern[] = [];
  const byCategory = new Map<string, TaskEvaluation[]>();
  for (const task of tasks) {
    if (task.error_category === undefined) continue;
    byCategory.set(task.error_category, [...(byCategory.get(task.error_category) ?? []), task]);
  }
  for (const [category, affected] of byCategory) {
    if (affected.length < 2) continue;
    patterns.push({
      pattern_type: 'repeated_errors',
      description: `'${category}' errors occurred ${affected.length} times in this run`,
      occurrences: affected.length,
      affected_tasks: affected.map((task) => task.task_id),
      suggested_fix: affected[0]!.suggestions[0] ?? null,
      detected_at: now,
      scope: 'run',
    });
  }
  let streak: TaskEvaluation[] = [];
  let longest: TaskEvaluation[] = [];
  for (const task of tasks) {
    streak = task.success ? [] : [...streak, task];
    if (streak.length > longest.length) longest = streak;
  }
  if (longest.length >= 2) {
    patterns.push({
      pattern_type: 'sequential_failures',
      description: `${longest.length} node executions failed in a row`,
      occurrences: longest.length,
      affected_tasks: longest.map((task) => task.task_id),
      suggested_fix: 'Fix the first failure: later nodes likely fail because of it',
      detected_at: now,
      scope: 'run',
    });
  }
  if (tasks.length > 0 && successRate < minSuccessRate) {
    patterns.push({
      pattern_type: 'low_success_rate',
      description: `Success rate ${percent(successRate)} is below the minimum ${percent(minSuccessRate)}`,
      occurrences: tasks.filter((task) => !task.success).length,
      affected_tasks: tasks.filter((task) => !task.success).map((task) => task.task_id),
      suggested_fix: 'Review the failing nodes and their inputs',
      detected_at: now,
      scope: 'run',
    });
  }
  return patterns;
}

/** One earlier run, reduced to what cross-run patterns need. */
export interface PastRun {
  run_id: string;
  status: string;
  failures: Array<{ node: string; message: string; code?: string }>;
}

/** Patterns across the reviewed run and earlier runs of the same agent (newest first). */
export function historyPatterns(
  current: PastRun,
  earlier: readonly PastRun[],
  minSuccessRate: number,
  now: string,
): FailurePattern[] {
  const runs = [current, ...earlier];
  if (runs.length < 2) return [];
  const patterns: FailurePattern[] = [];
  const byNode = new Map<string, string[]>();
  for (const run of runs) {
    for (const node of new Set(run.failures.map((failure) => failure.node)))
      byNode.set(node, [...(byNode.get(node) ?? []), run.run_id]);
  }
  for (const [node, failedRuns] of byNode) {
    if (failedRuns.length < 2) continue;
    const failure = runs.flatMap((run) => run.failures).find((item) => item.node === node)!;
    patterns.push({
      pattern_type: 'repeated_errors',
      description: `Node '${node}' failed in ${failedRuns.length} of the last ${runs.length} runs`,
      occurrences: failedRuns.length,
      affected_tasks: failedRuns.map((runId) => `${runId}:${node}`),
      suggested_fix: categorizeError(failure.message, failure.code).suggestion,
      detected_at: now,
      scope: 'history',
    });
  }
  const finished = runs.filter((run) => run.status === 'completed' || run.status === 'failed');
  const completed = finished.filter((run) => run.status === 'completed').length;
  if (finished.length >= 3 && completed / finished.length < minSuccessRate) {
    patterns.push({
      pattern_type: 'low_success_rate',
      description: `Only ${completed} of the last ${finished.length} runs completed (${percent(completed / finished.length)})`,
      occurrences: finished.length - completed,
      affected_tasks: finished.filter((run) => run.status !== 'completed').map((run) => run.run_id),
      suggested_fix: 'Look at the repeated node failures across runs first',
      detected_at: now,
      scope: 'history',
    });
  }
  return patterns;
}

function percent(rate: number): string {
  return `${Math.round(rate * 1000) / 10}%`;
}
