/**
 * prolog.query (TEA's WASM action): `facts` (clauses, optional; alias `rules`) are loaded, then
 * `code` (the query; alias `query`) is solved once. The result is
 * `{ success, bindings: [{Var: value}], returns? }`: `success` false when the query has no
 * solution (not an error), `bindings` the query's named variables (one answer, as TEA), `returns`
 * what `return/2` set. Prolog errors and budgets raise PROLOG_ERROR / PROLOG_BUDGET. The query
 * reads the state with `state/2`: `code` is not a template, so state text never becomes Prolog
 * source (no injection).
 */
import type { ActionCompiler, ActionDefinition } from '../actions/types.js';
import type { CompiledProlog } from './compile-prolog.js';

interface PreparedQuery {
  chunk: CompiledProlog;
}

function text(params: Record<string, unknown>, keys: readonly string[], compiler: ActionCompiler, required: boolean): { key: string; value: string } | undefined {
  const key = keys.find((name) => params[name] !== undefined);
  if (key === undefined) {
    if (required) throw compiler.error(`prolog.query needs \`${keys[0]}\` (the Prolog query)`, keys[0]);
    return undefined;
  }
  const value = params[key];
  if (typeof value !== 'string') throw compiler.error(`\`${key}\` must be Prolog code as a string`, key);
  if (value.includes('{{')) throw compiler.error(`\`${key}\` is Prolog, not a template: read the state with state(Key, Value)`, key);
  return { key, value };
}

export const prologQueryAction: ActionDefinition<PreparedQuery> = {
  name: 'prolog.query',
  description: 'Solves a Prolog query once over optional facts and rules, in the Prolog sandbox; returns {success, bindings, returns}.',
  parameters: {
    type: 'object',
    properties: {
      code: { type: 'string', description: 'the query (alias: query)' },
      query: { type: 'string' },
      facts: { type: 'string', description: 'clauses loaded first (alias: rules)' },
      rules: { type: 'string' },
    },
    additionalProperties: false,
  },
  sideEffects: false,
  prepare(params, compiler) {
    const query = text(params, ['code', 'query'], compiler, true)!;
    const facts = text(params, ['facts', 'rules'], compiler, false);
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
