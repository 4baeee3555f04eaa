/**
 * `tea-edge/reasoning`: the reasoning actions and TEA's DSPy spellings of them. ReAct calls the
 * tools the registry holds: add `toolActions` (`tea-edge/actions/tools`) for the built-in ones.
 */
import { dspyAlias } from '../actions/dspy-aliases.js';
import type { ActionDefinition } from '../core/action.js';
import { reasonCot } from '../reasoning/reason-cot.js';
import { reasonDecompose } from '../reasoning/reason-decompose.js';
import { reasonReact } from '../reasoning/react/reason-react.js';
import { reasonSelfCorrect } from '../reasoning/reason-self-correct.js';

/** reason.cot, reason.react, reason.self_correct, reason.decompose, reason.dspy.cot, reason.dspy.react; fresh definitions on every call. */
export function reasoningActions(): ActionDefinition[] {
  return [
    reasonCot(),
    reasonReact(),
    reasonSelfCorrect(),
    reasonDecompose(),
    dspyAlias('reason.dspy.cot', reasonCot() as ActionDefinition, {
      defaultSignature: 'question -> thinking, answer',
      exampleTarget: 'problem',
    }),
    dspyAlias('reason.dspy.react', reasonReact() as ActionDefinition, { defaultSignature: 'goal -> result' }),
  ];
}
