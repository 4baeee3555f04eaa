/**
 * The run-time half of a closed parameter schema, for actions without `prepare`: a key the schema
 * does not declare is INVALID_PARAMS naming the keys it does (a misspelt `max_token` must not be
 * silently dropped). Loaders that check `with:` against the schema at load refuse it earlier.
 */
import { AgentError } from '../core/agent-error.js';
import type { JsonSchema } from '../core/action.js';

export function rejectUnknownKeys(params: Record<string, unknown>, schema: JsonSchema, action: string): void {
  const declared = Object.keys((schema['properties'] ?? {}) as Record<string, unknown>);
  const unknown = Object.keys(params).filter((key) => !declared.includes(key));
  if (unknown.length > 0) {
    throw new AgentError(
      'INVALID_PARAMS',
      `${action} has no parameter ${unknown.map((key) => `'${key}'`).join(', ')} (it takes ${declared.join(', ')})`,
      { field: unknown[0]! },
    );
  }
}
