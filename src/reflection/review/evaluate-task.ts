/**
 * evaluateTask: seed 002's task evaluation of one node execution: `success`, `confidence`,
 * `issues`, `suggestions`, `should_replan`, plus the error category. Slow executions (more than
 * `max_execution_time_multiplier` × the node's median in earlier runs) and empty outputs (when
 * `check_output_quality`) are issues but do not make a success a failure.
 */
import { categorizeError, type ErrorCategory } from './error-category.js';
import type { ReviewCriteria } from './review-criteria.js';
import type { TaskExecution } from './task-executions.js';

/** Seed 002's Evaluation, for a task. */
export interface TaskEvaluation {
  task_id: string;
  node: string;
  success: boolean;
  confidence: number;
  issues: string[];
  suggestions: string[];
  should_replan: boolean;
  error_category?: ErrorCategory;
  duration_ms?: number;
  slow?: boolean;
  empty_output?: boolean;
}

export function evaluateTask(
  task: TaskExecution,
  criteria: ReviewCriteria,
  medianMs: number | undefined,
): TaskEvaluation {
  const evaluation: TaskEvaluation = {
    task_id: task.task_id,
    node: task.node,
    success: task.status === 'succeeded',
    confidence: 0.9,
    issues: [],
    suggestions: [],
    should_replan: false,
  };
  if (task.duration_ms !== undefined) evaluation.duration_ms = task.duration_ms;
  if (task.status === 'failed') {
    const message = task.error?.message ?? 'unknown error';
    const category = categorizeError(message, task.error?.code);
    evaluation.error_category = category.category;
    evaluation.issues.push(`Task failed (${category.category}): ${message}`);
    evaluation.suggestions.push(category.suggestion);
    evaluation.should_replan = category.should_replan;
    evaluation.confidence = category.category === 'execution' ? 0.6 : 0.8;
  } else if (task.status === 'incomplete') {
    evaluation.issues.push('Task did not complete');
    evaluation.suggestions.push('Resume or re-run the task');
    evaluation.confidence = 0.5;
  }
  if (task.attempts > 1) evaluation.issues.push(`Task needed ${task.attempts} attempts`);
  if (
    medianMs !== undefined &&
    task.duration_ms !== undefined &&
    medianMs > 0 &&
    task.duration_ms > criteria.max_execution_time_multiplier * medianMs
  ) {
    evaluation.slow = true;
    evaluation.issues.push(
      `Task took ${task.duration_ms} ms, more than ${criteria.max_execution_time_multiplier}× its median of ${medianMs} ms in earlier runs`,
    );
    evaluation.suggestions.push('Investigate the slowdown: a slower model, larger inputs, or retries');
  }
  if (criteria.check_output_quality && task.status === 'succeeded' && isEmptyOutput(task.output)) {
    evaluation.empty_output = true;
    evaluation.confidence = Math.min(evaluation.confidence, 0.6);
    evaluation.issues.push('Task produced an empty output');
    evaluation.suggestions.push('Check the prompt or inputs: the node returned nothing useful');
  }
  return evaluation;
}

/** Nothing, an empty string/list/object, or an update whose every value is empty. */
export function isEmptyOutput(output: unknown): boolean {
  if (output === undefined || output === null) return true;
  if (typeof output === 'string') return output.trim() === '';
  if (Array.isArray(output)) return output.length === 0;
  if (typeof output === 'object') {
    const values = Object.values(output as Record<string, unknown>);
    return (
      values.length === 0 ||
      values.every(
        (value) =>
          value === null ||
          value === undefined ||
          (typeof value === 'string' && value.trim() === '') ||
          (Array.isArray(value) && value.length === 0),
      )
    );
  }
  return false;
}
