/** `math.calculate {expression}` → `{result}`: arithmetic without eval (math-expression.ts). */
import { AgentError } from '../core/agent-error.js';
import type { ActionDefinition } from '../core/action.js';
import { quoteText } from '../util/cut-text.js';

/**
 * The `math.calculate` tool. A syntax error, division by zero or a non-finite result fails the
 * call with `ACTION_FAILED`, which ReAct feeds back as an `Error executing …` observation.
 *
 * @example await mathCalculate().run({expression: 'sqrt(16) * (2 + 3)'}, context) // → {result: 20}
 */
export function mathCalculate(): ActionDefinition<{ expression?: unknown }> {
  return {
    name: 'math.calculate',
    description:
      'Evaluate an arithmetic expression: + - * / % ** (power), parentheses, unary minus, and sqrt abs min max round floor ceil. Returns {result}.',
    parameters: {
      type: 'object',
      properties: {
        expression: { type: 'string', description: 'The expression, e.g. "(2 + 3) * sqrt(16)"', maxLength: 1000 },
      },
      required: ['expression'],
      additionalProperties: false,
    },
    sideEffects: false,
    async run(params) {
      const expression = typeof params.expression === 'number' ? String(params.expression) : params.expression;
      if (typeof expression !== 'string') {
        throw new AgentError('INVALID_PARAMS', 'math.calculate needs a string "expression"', { field: 'expression' });
      }
      // Loaded at the first calculation: its own chunk where bundles split (the web demo's first load).
      const { evaluateMath } = await import('./math-expression.js');
      const outcome = evaluateMath(expression);
      if (!outcome.ok)
        throw new AgentError('ACTION_FAILED', `cannot calculate ${quoteText(expression, 100)}: ${outcome.error}`, {
          field: 'expression',
        });
      return { result: outcome.value };
    },
  };
}
