/**
 * evaluateWithProlog: the reflection evaluator `type: custom, language: prolog`. The candidate
 * passes when the rules hold: the chunk succeeds. `state/2` answers the loop state plus `output`,
 * `reflection_output` and `iteration` (as TEA's evaluators see them); `return/2` may add
 * `valid`, `score`, `errors`, `suggestions` or `feedback` to the verdict. A failing chunk is an
 * invalid candidate; a Prolog error or spent budget is an invalid attempt of type
 * `evaluator_error`, as with Lua.
 */
import type { ActionContext, State } from '../../core/action.js';
import type { CompiledScript } from '../../core/script-sandbox.js';
import type { CompiledProlog } from '../../prolog/compile-prolog.js';
import { describeFailure, isControlFlow } from '../control-flow.js';
import type { PreparedEvaluator, Verdict } from '../reflection-types.js';
import { luaBudgetOf, luaState } from '../run-step.js';
import { normalizeVerdict } from './normalize-verdict.js';

export function evaluateWithProlog(
  evaluator: PreparedEvaluator & { type: 'prolog' },
  output: unknown,
  context: ActionContext,
  loopState: State,
  iteration: number,
): Verdict {
  const state = luaState(loopState, { output: output ?? null, reflection_output: output ?? null, iteration });
  let outcome;
  try {
    const budget = luaBudgetOf(context);
    outcome = asProlog(evaluator.prolog).solve(
      { state },
      { signal: context.signal, ...(budget === undefined ? {} : { budget }) },
    );
  } catch (error) {
    if (isControlFlow(error, context.signal)) throw error;
    return {
      valid: false,
      score: 0,
      errors: [{ message: `Evaluator error: ${describeFailure(error)}`, type: 'evaluator_error' }],
      suggestions: ['Check the Prolog evaluator code'],
    };
  }
  const verdict: Record<string, unknown> = { valid: outcome.succeeded, ...outcome.returns };
  if (!outcome.succeeded && outcome.returns.errors === undefined)
    verdict.errors = ['the Prolog rules do not hold for this candidate'];
  return normalizeVerdict(verdict, evaluator.threshold);
}

function asProlog(script: CompiledScript): CompiledProlog {
  if (typeof (script as Partial<CompiledProlog>).solve !== 'function')
    throw new TypeError('the Prolog evaluator was compiled by a sandbox without solve()');
  return script as CompiledProlog;
}
