/**
 * The state a fresh run starts from: `initial_state ⊕ input`, after checking the input is a JSON
 * object (INPUT_INVALID) that matches the agent's `input_schema` (INPUT_INVALID, with the
 * schema errors in `details.errors`). A forked run's state (time travel: a state the caller
 * wrote, continuing after a node), and a resumed run's state after its `state_update`, are held
 * to the same schema: `forkedState`.
 */
import type { State } from '../core/action.js';
import { AgentError } from '../core/agent-error.js';
import { isPlainObject, mergeShallow, toPlainJson } from '../util/safe-json.js';
import type { CompiledAgent } from './compiled-agent.js';

export function initialState(agent: CompiledAgent, input: unknown): State {
  if (input !== undefined && !isPlainObject(input))
    throw new AgentError('INPUT_INVALID', 'the run input must be a JSON object');
  const plainInput = (toPlainJson(input ?? {}, 'input') ?? {}) as State;
  checkInputSchema(agent, plainInput, 'input');
  return mergeShallow(structuredClone(agent.spec.initialState) as State, plainInput);
}

/**
 * The state a fork continues with, checked as strictly as a fresh run's input: plain JSON no
 * deeper than a state may be (STATE_INVALID), and matching `input_schema` (INPUT_INVALID). A
 * state also holds what nodes wrote, which the schema does not describe: when the schema lists
 * `properties`, the keys it lists are checked (its `required` among them, so a required key
 * cannot be dropped either); a schema without `properties` is applied to the whole state.
 */
export function forkedState(agent: CompiledAgent, state: unknown): State {
  if (!isPlainObject(state))
    throw new AgentError('INPUT_INVALID', "a forked run's state must be a JSON object", { field: 'state' });
  const plain = (toPlainJson(state, 'state') ?? {}) as State;
  const schema = agent.spec.inputSchema;
  if (schema === undefined) return plain;
  const listed =
    isPlainObject(schema) && isPlainObject(schema['properties']) ? Object.keys(schema['properties']) : undefined;
  const checked =
    listed === undefined
      ? plain
      : Object.fromEntries(listed.filter((key) => Object.hasOwn(plain, key)).map((key) => [key, plain[key]]));
  checkInputSchema(agent, checked, 'forked state');
  return plain;
}

function checkInputSchema(agent: CompiledAgent, value: State, what: string): void {
  if (agent.inputSchema === undefined) return;
  const check = agent.inputSchema.validate(value);
  if (!check.valid) {
    throw new AgentError(
      'INPUT_INVALID',
      `${what} does not match input_schema: ${check.errors.map((error) => `${error.path || '/'} ${error.message}`).join('; ')}`,
      {
        details: { errors: check.errors },
      },
    );
  }
}
