/**
 * reason.cot, reason.react, reason.self_correct, reason.decompose (docs/spec.md#6-reasoning-seeds-003-004) and the built-in
 * tools (memory.store, memory.retrieve, math.calculate, json.query, http.get).
 */
import type { ActionDefinition } from '../core/action.js';
import { builtinTools } from '../tools/builtin-tools.js';
import { reasonCot } from './reason-cot.js';
import { reasonDecompose } from './reason-decompose.js';
import { reasonReact } from './react/reason-react.js';
import { reasonSelfCorrect } from './reason-self-correct.js';

/** The reasoning actions and the built-in tools, fresh definitions on every call. */
export function reasoningActions(): ActionDefinition[] {
  return [reasonCot(), reasonReact(), reasonSelfCorrect(), reasonDecompose(), ...builtinTools()];
}
