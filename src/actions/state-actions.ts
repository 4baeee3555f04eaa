/**
 * TEA's state-shaping actions: `state.set` (write the `with:` keys into the state), `return` and
 * its spelling `core.return` (TEA's WASM runtime and learning examples: `value` is the node's
 * result; without `value`, the `with:` mapping is). Neither ends the run: in TEA they only
 * produce an update, and the graph goes on to the next node.
 */
import { AgentError } from '../core/agent-error.js';
import type { ActionDefinition, JsonSchema } from '../core/action.js';

/** A state key a `with:` mapping may name: an identifier, never a prototype name. */
const STATE_KEY = '^(?!__proto__$|constructor$|prototype$)[A-Za-z_][A-Za-z0-9_]{0,127}$';

/**
 * The keys are the state keys themselves, so the schema cannot list them; it is closed by
 * pattern instead: every key must be a plain identifier (checked at load), and no other key passes.
 */
const STATE_KEYS_SCHEMA: JsonSchema = {
  type: 'object',
  patternProperties: { [STATE_KEY]: {} },
  additionalProperties: false,
};

const KEY_PATTERN = new RegExp(STATE_KEY);

function checkKeys(params: Record<string, unknown>, action: string): void {
  for (const key of Object.keys(params)) {
    if (!KEY_PATTERN.test(key))
      throw new AgentError(
        'INVALID_PARAMS',
        `${action}: '${key}' is not a state key (letters, digits and _; not starting with a digit)`,
        { field: key },
      );
  }
}

const stateSet: ActionDefinition<Record<string, unknown>> = {
  name: 'state.set',
  description: 'Sets state keys: every key of `with:` (rendered) is written into the state as given.',
  parameters: { ...STATE_KEYS_SCHEMA, description: 'state key → value' },
  sideEffects: false,
  run(params) {
    checkKeys(params, 'state.set');
    return { ...params };
  },
};

function returnAction(name: string, description: string): ActionDefinition<Record<string, unknown>> {
  return {
    name,
    description,
    parameters: {
      ...STATE_KEYS_SCHEMA,
      description:
        '`value` (any JSON: an object is merged into the state, anything else is stored as `result` or under `output`), or state key → value',
    },
    sideEffects: false,
    run(params) {
      if (Object.hasOwn(params, 'value')) {
        if (Object.keys(params).length > 1) {
          throw new AgentError(
            'INVALID_PARAMS',
            `${name}: give either \`value\` alone or state keys, not both (TEA ignores the other keys)`,
            { field: 'value' },
          );
        }
        return params['value'] ?? null;
      }
      checkKeys(params, name);
      return { ...params };
    },
  };
}

export function stateActions(): ActionDefinition[] {
  return [
    stateSet,
    returnAction(
      'return',
      'Produces the node result: `value` (merged into the state when it is an object), or the `with:` keys. Does not end the run.',
    ),
    returnAction('core.return', 'TEA spelling of `return`.'),
  ];
}
