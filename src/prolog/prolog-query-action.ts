/**
 * prolog.query (TEA's WASM action): `facts` (clauses, optional) are loaded, then
 * `code` (the query; alias `query`) is solved once. The result is
 * `{ success, bindings: [{Var: value}], returns? }`: `success` false when the query has no
 * solution (not an error), `bindings` the query's named variables (one answer, as TEA), `returns`
 * what `return/2` set. Prolog errors and budgets raise PROLOG_ERROR / PROLOG_BUDGET. The query
 * reads the state with `state/2`: `code` is not a template, so state text never becomes Prolog
 * source (no injection).
 */
import type { ActionCompiler, ActionDefinition } from '../core/action.js';
import type { CompiledProlog } from './compile-prolog.js';

interface PreparedQuery {
  chunk: CompiledProlog;
}

function text(
  params: Record<string, unknown>,
  keys: readonly string[],
  compiler: ActionCompiler,
  required: boolean,
): { key: string; value: string } | undefined {
  const key = keys.find((name) => params[name] !== undefined);
  if (key === undefined) {
    if (required) throw compiler.error(`prolog.query needs \`${keys[0]}\``, keys[0]);
    return undefined;
  }
  const value = params[key];
  if (typeof value !== 'string' || value.includes('{{'))
    throw compiler.error(`\`${key}\` must be Prolog text (no template: use state/2)`, key);
  return { key, value };
}

export const prologQueryAction: ActionDefinition<PreparedQuery> = {
  name: 'prolog.query',
  description: 'Solves a Prolog query (code) once over facts: {success, bindings, returns}.',
  parameters: {
    type: 'object',
    properties: { code: { type: 'string' }, query: { type: 'string' }, facts: { type: 'string' } },
    additionalProperties: false,
  },
  sideEffects: false,
  prepare(params, compiler) {
    const query = text(params, ['code', 'query'], compiler, true)!;
    const facts = text(params, ['facts'], compiler, false);
    const clauses = facts === undefined ? '' : `${facts.value.trimEnd().replace(/([^.])$/, '$1.')}\n`;
    // The query runs as a directive: TEA's term reading would assert a bare `path(a, X)` as a fact.
    const source = `${clauses}:- ${query.value.trim().replace(/\.$/, '')}.`;
    const chunk = compiler.script('prolog', source, facts?.key ?? query.key) as CompiledProlog;
    return { chunk };
  },
  run(prepared, context) {
    const outcome = prepared.chunk.solve({ state: context.state }, { signal: context.signal });
    return {
      success: outcome.succeeded,
      bindings: outcome.succeeded ? [outcome.bindings] : [],
      ...(Object.keys(outcome.returns).length > 0 ? { returns: outcome.returns } : {}),
    };
  },
};
