/**
 * SWI-Prolog's declarations, as TEA's Prolog agents write them (`:- dynamic mother/2, father/2.`).
 * tau-prolog knows `dynamic` only as a consult-time directive taking a list, declares no `dynamic`
 * operator, and has no `dynamic/1` predicate for a directive run as a goal (compile-prolog.ts runs
 * `:- Goal` as a query, as TEA's `tea_load_code/1` does). Each session gets what SWI gives:
 *
 *   operators       dynamic, discontiguous, multifile: prefix, priority 1150 (fx)
 *   dynamic/1       declares every Name/Arity of an indicator, a comma sequence or a list: a call
 *                   then fails instead of raising existence_error, and clauses already there stay
 *   discontiguous/1 and multifile/1   checked like dynamic/1, no effect (a chunk's clauses are
 *                   asserted one by one, and there is one chunk per session)
 *
 * `table` is left out on purpose: without tabling, a program that relies on it would loop until its
 * budget, so it stays an unknown procedure (PROLOG_ERROR naming table/1).
 */
import { pl, type TauSession, type TauTerm, type TauThread } from '#prolog-vm';
import { defineHostPredicate } from './host-predicate.js';

const DECLARATIONS = ['dynamic', 'discontiguous', 'multifile'] as const;
const { Term } = pl.type;

/** Adds the operators and predicates above to a fresh session. */
export function installSwiDeclarations(session: TauSession): void {
  // tau keeps its operator table by priority: {1150: {meta_predicate: ['fx']}, ...}.
  const prefix: Record<string, string[]> = (session.__operators['1150'] ??= {});
  for (const name of DECLARATIONS) prefix[name] = ['fx'];
  for (const name of DECLARATIONS) {
    defineHostPredicate(session, `${name}/1`, (thread: TauThread, point: unknown, atom: TauTerm) => {
      const indicators: string[] = [];
      const problem = collect(atom.args[0], indicators, atom.indicator);
      if (problem !== undefined) return thread.throw_error(problem);
      // A built-in or a host predicate (return/2, tea_load_code/1) cannot become dynamic.
      const fixed = indicators.find(
        (key) => Object.hasOwn(pl.modules.system!.rules, key) || typeof session.modules.user.rules[key] === 'function',
      );
      if (fixed !== undefined)
        return thread.throw_error(
          pl.error.permission('modify', 'static_procedure', new Term(fixed, []), atom.indicator),
        );
      if (name === 'dynamic') for (const key of indicators) declareDynamic(session, key);
      thread.success(point);
    });
  }
}

/** Reads `spec` (Name/Arity, `A, B`, or a list of them) into `into`; the error term when it is not one. */
function collect(spec: TauTerm, into: string[], indicator: string): TauTerm | undefined {
  if (pl.type.is_variable(spec)) return pl.error.instantiation(indicator);
  if (spec.indicator === ',/2' || spec.indicator === './2') {
    return collect(spec.args[0], into, indicator) ?? collect(spec.args[1], into, indicator);
  }
  if (pl.type.is_term(spec) && spec.indicator === '[]/0') return undefined;
  if (spec.indicator !== '//2') return pl.error.type('predicate_indicator', spec, indicator);
  const [name, arity] = spec.args;
  if (pl.type.is_variable(name) || pl.type.is_variable(arity)) return pl.error.instantiation(indicator);
  if (!pl.type.is_atom(name)) return pl.error.type('atom', name, indicator);
  if (!pl.type.is_integer(arity) || arity.value < 0) return pl.error.type('integer', arity, indicator);
  into.push(`${name.id}/${arity.value}`);
  return undefined;
}

function declareDynamic(session: TauSession, key: string): void {
  const user = session.modules.user;
  user.public_predicates[key] = true;
  user.rules[key] ??= [];
}
