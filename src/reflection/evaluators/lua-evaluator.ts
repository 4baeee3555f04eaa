/**
 * evaluateWithLua: the `lua` evaluator (alias `custom` + `language: lua`). The script sees
 * `state` (the loop state plus `output`, `iteration`, `reflection_output`), `output`,
 * `iteration` and `variables` (the history holds the latest 10 attempts), in the Lua sandbox (no io, os beyond time, require, debug). A
 * script error or budget overrun is an invalid attempt of type `evaluator_error`.
 */
import type { ActionContext, State } from '../../core/action.js';
import { describeFailure, isControlFlow } from '../control-flow.js';
import type { PreparedEvaluator, Verdict } from '../reflection-types.js';
import { luaBudgetOf, luaState } from '../run-step.js';
import { normalizeVerdict } from './normalize-verdict.js';

export function evaluateWithLua(
  evaluator: PreparedEvaluator & { type: 'lua' },
  output: unknown,
  context: ActionContext,
  loopState: State,
  iteration: number,
): Verdict {
  const state = luaState(loopState, { output: output ?? null, reflection_output: output ?? null, iteration });
  let result: unknown;
  try {
    const budget = luaBudgetOf(context);
    result = evaluator.lua.run(
      { state, output: output ?? null, iteration, variables: context.variables },
      { signal: context.signal, ...(budget === undefined ? {} : { budget }) },
    );
  } catch (error) {
    if (isControlFlow(error, context.signal)) throw error;
    return {
      valid: false,
      score: 0,
      errors: [{ message: `Evaluator error: ${describeFailure(error)}`, type: 'evaluator_error' }],
      suggestions: ['Check the Lua evaluator code'],
    };
  }
  return normalizeVerdict(result, evaluator.threshold);
}
