/**
 * JSON ⇄ Prolog terms, the state bridge's data mapping (docs/prolog.md#state-bridge). TEA maps
 * strings to atoms and objects to SWI dicts; tau has no dicts, so objects travel as SWI's classic
 * JSON term `json([key=Value, …])`:
 *   null, true, false → the atoms null, true, false;  numbers → numbers;  strings → atoms;
 *   arrays → lists;  objects → json([k=V, …]).
 * Back: the same, plus other atoms → strings, other compound terms → their quoted text, unbound
 * variables → null. Conversions are bounded by the caller's work meter (every node ticks).
 */
import { pl, type TauTerm } from '#prolog-vm';

const { Term, Num } = pl.type;

/** JSON value → term. Non-finite numbers never reach here (state is JSON). */
export function toTerm(value: unknown): TauTerm {
  if (value === null || value === undefined) return new Term('null', []);
  if (typeof value === 'boolean') return new Term(value ? 'true' : 'false', []);
  if (typeof value === 'number') return new Num(value, !Number.isInteger(value));
  if (typeof value === 'string') return new Term(value, []);
  if (Array.isArray(value)) return listTerm(value.map(toTerm));
  if (typeof value === 'object') {
    const pairs = Object.entries(value as Record<string, unknown>).map(
      ([key, item]) => new Term('=', [new Term(key, []), toTerm(item)]),
    );
    return new Term('json', [listTerm(pairs)]);
  }
  return new Term(String(value), []);
}

export function listTerm(items: TauTerm[]): TauTerm {
  let list = new Term('[]', []);
  for (let index = items.length - 1; index >= 0; index--) list = new Term('.', [items[index], list]);
  return list;
}

/** The items of a proper list, or undefined when `term` is not one. */
export function listItems(term: TauTerm): TauTerm[] | undefined {
  const items: TauTerm[] = [];
  let pointer = term;
  while (pl.type.is_term(pointer) && pointer.indicator === './2') {
    items.push(pointer.args[0]);
    pointer = pointer.args[1];
  }
  return pl.type.is_term(pointer) && pointer.indicator === '[]/0' ? items : undefined;
}

/** Term (bindings applied) → JSON. */
export function fromTerm(term: TauTerm): unknown {
  if (pl.type.is_variable(term)) return null;
  if (pl.type.is_number(term)) return term.value;
  if (!pl.type.is_term(term)) return String(term);
  if (term.args.length === 0) {
    if (term.id === 'null') return null;
    if (term.id === 'true') return true;
    if (term.id === 'false') return false;
    if (term.id === '[]') return [];
    return term.id;
  }
  const items = listItems(term);
  if (items !== undefined) return items.map(fromTerm);
  if (term.indicator === 'json/1') {
    const pairs = listItems(term.args[0]);
    if (pairs?.every(isKeyValue)) {
      const object: Record<string, unknown> = {};
      for (const pair of pairs) object[keyText(pair.args[0])] = fromTerm(pair.args[1]);
      return object;
    }
  }
  return quotedText(term);
}

let printingSession: unknown;

/** A term's quoted text with the standard operators (`a-b`, not `-(a,b)`). */
export function quotedText(term: TauTerm): string {
  printingSession ??= pl.create();
  return term.toString({ quoted: true, session: printingSession });
}

function isKeyValue(term: TauTerm): boolean {
  return (
    pl.type.is_term(term) &&
    (term.indicator === '=/2' || term.indicator === '-/2') &&
    (pl.type.is_atom(term.args[0]) || pl.type.is_number(term.args[0]))
  );
}

function keyText(term: TauTerm): string {
  return pl.type.is_number(term) ? String(term.value) : term.id;
}
