/**
 * SWI-Prolog's dict predicates over tea-edge's JSON objects. SWI hands TEA agents a JSON object
 * from `state/2` as a dict; here it is `json([Key=Value, ...])` (json-terms.ts), so TEA's
 * `is_dict(D)` and `get_dict(Key, D, Value)` work on that form:
 *
 *   is_dict(@D)                  D is json([K=V, ...]) with atom keys
 *   get_dict(?K, +D, ?V)         the value of K; with K unbound, each pair on backtracking
 *   dict_pairs(+D, -Tag, -Pairs) the pairs as K-V, ordered by key as SWI orders them; Tag is unbound
 *
 * `get_dict/3` and `dict_pairs/3` on anything else is type_error(dict, D), as in SWI.
 */
import { pl, type TauSession, type TauTerm, type TauThread } from '#prolog-vm';
import { defineHostPredicate } from './host-predicate.js';
import { listItems, listTerm } from './json-terms.js';

const { Term, State } = pl.type;

/** The Key=Value pairs of a dict, or undefined when `term` is not one. */
function dictPairs(term: TauTerm): Array<[TauTerm, TauTerm]> | undefined {
  if (!pl.type.is_term(term) || term.indicator !== 'json/1') return undefined;
  const items = listItems(term.args[0]);
  if (items === undefined) return undefined;
  const pairs: Array<[TauTerm, TauTerm]> = [];
  for (const item of items) {
    if (
      !pl.type.is_term(item) ||
      item.indicator !== '=/2' ||
      !(pl.type.is_atom(item.args[0]) || pl.type.is_integer(item.args[0]))
    )
      return undefined;
    pairs.push([item.args[0], item.args[1]]);
  }
  return pairs;
}

export function installSwiDicts(session: TauSession): void {
  const alternatives = (thread: TauThread, point: any, goals: TauTerm[]) =>
    thread.prepend(goals.map((goal) => new State(point.goal.replace(goal), point.substitution, point)));

  defineHostPredicate(session, 'is_dict/1', (thread, point, atom) => {
    if (dictPairs(atom.args[0]) !== undefined) thread.success(point);
  });

  defineHostPredicate(session, 'get_dict/3', (thread, point, atom) => {
    const [key, dict, value] = atom.args;
    const pairs = dictPairs(dict);
    if (pairs === undefined)
      return thread.throw_error(
        pl.type.is_variable(dict)
          ? pl.error.instantiation(atom.indicator)
          : pl.error.type('dict', dict, atom.indicator),
      );
    if (!pl.type.is_variable(key)) {
      const found = pairs.find(
        ([candidate]) => candidate.toString() === key.toString() && pl.type.is_atom(candidate) === pl.type.is_atom(key),
      );
      if (found !== undefined) alternatives(thread, point, [new Term('=', [value, found[1]])]);
      return;
    }
    alternatives(
      thread,
      point,
      pairs.map(([candidate, item]) => new Term(',', [new Term('=', [key, candidate]), new Term('=', [value, item])])),
    );
  });

  defineHostPredicate(session, 'dict_pairs/3', (thread, point, atom) => {
    const [dict, , pairsOut] = atom.args;
    const pairs = dictPairs(dict);
    if (pairs === undefined)
      return thread.throw_error(
        pl.type.is_variable(dict)
          ? pl.error.instantiation(atom.indicator)
          : pl.error.type('dict', dict, atom.indicator),
      );
    const sorted = [...pairs].sort(([a], [b]) => (String(a.id ?? a.value) < String(b.id ?? b.value) ? -1 : 1));
    alternatives(thread, point, [
      new Term('=', [pairsOut, listTerm(sorted.map(([key, item]) => new Term('-', [key, item])))]),
    ]);
  });
}
