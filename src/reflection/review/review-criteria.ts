/**
 * ReviewCriteria: the thresholds of the run reviewer (seed 002's ReflectionCriteria), read from
 * `settings.reflection` and the call, the call winning. Unknown keys are ignored; a wrong type
 * is INVALID_PARAMS naming the key.
 */
import { AgentError } from '../../core/agent-error.js';

export interface ReviewCriteria {
  /** Minimum fraction of node executions that must succeed (0.8). */
  min_success_rate: number;
  /** A node slower than this × its median duration in earlier runs is flagged (2.0). */
  max_execution_time_multiplier: number;
  /** Incomplete or failed node executions, or a run that did not complete, are issues (true). */
  require_all_tasks_complete: boolean;
  /** Empty node outputs are issues (true). */
  check_output_quality: boolean;
}

export const DEFAULT_REVIEW_CRITERIA: Readonly<ReviewCriteria> = Object.freeze({
  min_success_rate: 0.8,
  max_execution_time_multiplier: 2.0,
  require_all_tasks_complete: true,
  check_output_quality: true,
});

/** Criteria from layered partial sources (later ones win). */
export function readCriteria(...sources: unknown[]): ReviewCriteria {
  const criteria: ReviewCriteria = { ...DEFAULT_REVIEW_CRITERIA };
  for (const source of sources) {
    if (source === undefined || source === null) continue;
    if (typeof source !== 'object' || Array.isArray(source))
      throw new AgentError('INVALID_PARAMS', 'review criteria must be a mapping');
    const raw = source as Record<string, unknown>;
    for (const key of ['min_success_rate', 'max_execution_time_multiplier'] as const) {
      if (raw[key] === undefined) continue;
      const value = raw[key];
      if (typeof value !== 'number' || !Number.isFinite(value) || value < 0)
        throw new AgentError('INVALID_PARAMS', `review criterion '${key}' must be a non-negative number`, {
          field: key,
        });
      if (key === 'min_success_rate' && value > 1)
        throw new AgentError('INVALID_PARAMS', "review criterion 'min_success_rate' must be between 0 and 1", {
          field: key,
        });
      criteria[key] = value;
    }
    for (const key of ['require_all_tasks_complete', 'check_output_quality'] as const) {
      if (raw[key] === undefined) continue;
      if (typeof raw[key] !== 'boolean')
        throw new AgentError('INVALID_PARAMS', `review criterion '${key}' must be true or false`, { field: key });
      criteria[key] = raw[key] as boolean;
    }
  }
  return criteria;
}
