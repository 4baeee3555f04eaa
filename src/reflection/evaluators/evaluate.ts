/**
 * evaluate: runs a prepared evaluator on one candidate and returns its verdict. Evaluators never
 * throw for a bad candidate or a broken script; only run-level control flow (cancellation,
 * budget, confirmation pause) propagates.
 */
import type { ActionContext, State } from '../../core/action.js';
import type { PreparedEvaluator, Verdict } from '../reflection-types.js';
import { evaluateWithJudge } from './llm-evaluator.js';
import { evaluateWithLua } from './lua-evaluator.js';
import { evaluateWithProlog } from './prolog-evaluator.js';
import { evaluateWithSchema } from './schema-evaluator.js';

export async function evaluate(
  evaluator: PreparedEvaluator,
  output: unknown,
  context: ActionContext,
  loopState: State,
  iteration: number,
): Promise<Verdict> {
  switch (evaluator.type) {
    case 'schema':
      return evaluateWithSchema(evaluator, output);
    case 'llm':
      return evaluateWithJudge(evaluator, output, context, loopState, iteration);
    case 'lua':
      return evaluateWithLua(evaluator, output, context, loopState, iteration);
    case 'prolog':
      return evaluateWithProlog(evaluator, output, context, loopState, iteration);
  }
}
