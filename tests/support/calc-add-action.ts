/** A host action for tests of model-driven tool calls: `calc.add` adds `a` and `b`. */
import type { ActionDefinition } from '../../src/core/action.js';

export const calcAddAction: ActionDefinition = {
  name: 'calc.add',
  description: 'Adds two numbers.',
  parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
  run: (params: { a: number; b: number }) => ({ sum: params.a + params.b }),
};
