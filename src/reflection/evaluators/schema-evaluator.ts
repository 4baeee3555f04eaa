/**
 * evaluateWithSchema: the `schema` evaluator. All errors are collected; the score is graded
 * (`max(0, 1 − 0.2 n)`) so `return_best` prefers the attempt with fewer errors; suggestions as in
 * TEA. A value too large to validate is an invalid attempt, not an aborted loop.
 */
import { AgentError } from '../../core/agent-error.js';
import { schemaSuggestions } from '../../schema/schema-suggestions.js';
import { scoreFromErrors } from '../../schema/score-from-errors.js';
import type { PreparedEvaluator, Verdict } from '../reflection-types.js';

export function evaluateWithSchema(evaluator: PreparedEvaluator & { type: 'schema' }, output: unknown): Verdict {
  let result;
  try {
    result = evaluator.schema.validate(output, { coerce: evaluator.coerce });
  } catch (error) {
    const message = AgentError.isInstance(error) ? `${error.message} (${error.code})` : String(error);
    return {
      valid: false,
      score: 0,
      errors: [{ message: `Evaluator failed: ${message}`, type: 'evaluator_error' }],
      suggestions: [],
    };
  }
  if (result.valid) return { valid: true, score: 1, errors: [], suggestions: [] };
  return {
    valid: false,
    score: scoreFromErrors(result.errors.length),
    errors: result.errors.map((error) => ({
      message: error.message,
      path: error.path,
      dotted_path: error.dotted_path,
      keyword: error.keyword,
      type: error.type,
    })),
    suggestions: schemaSuggestions(result.errors),
  };
}
