/**
 * The state a fresh run starts from: `initial_state ⊕ input`, after checking the input is a JSON
 * object (INPUT_INVALID) that matches the agent's `input_schema` (INPUT_INVALID, with the
 * schema errors in `details.errors`).
 */
import type { State } from '../actions/types.js';
import { AgentError } from '../errors/agent-error.js';
import { isPlainObject, mergeShallow, toPlainJson } from '../util/safe-json.js';
import type { CompiledAgent } from './compiled-agent.js';

export function initialState(agent: CompiledAgent, input: unknown): State {
  if (input !== undefined && !isPlainObject(input)) throw new AgentError('INPUT_INVALID', 'the run input must be a JSON object');
  const plainInput = (toPlainJson(input ?? {}, 'input') ?? {}) as State;
  if (agent.inputSchema !== undefined) {
    const check = agent.inputSchema.validate(plainInput);
    if (!check.valid) {
      throw new AgentError('INPUT_INVALID', `input does not match input_schema: ${check.errors.map((error) => `${error.path || '/'} ${error.message}`).join('; ')}`, {
        details: { errors: check.errors },
      });
    }
  }
  return mergeShallow(structuredClone(agent.spec.initialState) as State, plainInput);
}
