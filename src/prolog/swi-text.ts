/**
 * SWI-Prolog's text predicates that TEA's Prolog agents call and tau-prolog lacks. Strings read as
 * atoms here (prolog-session.ts sets double_quotes to atom), so SWI's string predicates are their
 * atom counterparts:
 *
 *   atom_string/2   either side bound; a number on the left is written as text
 *   term_to_atom/2, term_string/2   a term written quoted, or an atom read as a term
 *   sumlist/2 (SWI's old name of sum_list/2), string_concat/3, string_length/2, string_chars/2,
 *   string_codes/2, string_lower/2, string_upper/2   renamed to tau's built-ins
 *   number_string/2 either side bound (tau has no atom_number/2)
 */
import { pl, type TauSession, type TauTerm, type TauThread } from '#prolog-vm';
import { defineHostPredicate } from './host-predicate.js';
import { buildsText, spendText } from './tau-patches.js';
import { PrologSyntax, readChunkTerms } from './tea-reading.js';

const { Term, State } = pl.type;

/** SWI name → tau built-in, with the argument order tau wants. */
const RENAMED: ReadonlyArray<[indicator: string, target: string, order: number[]]> = [
  ['sumlist/2', 'sum_list', [0, 1]],
  ['string_concat/3', 'atom_concat', [0, 1, 2]],
  ['string_length/2', 'atom_length', [0, 1]],
  ['string_chars/2', 'atom_chars', [0, 1]],
  ['string_codes/2', 'atom_codes', [0, 1]],
  ['string_lower/2', 'downcase_atom', [0, 1]],
  ['string_upper/2', 'upcase_atom', [0, 1]],
];

export function installSwiText(session: TauSession): void {
  const continueWith = (thread: TauThread, point: any, goal: TauTerm) =>
    thread.prepend([new State(point.goal.replace(goal), point.substitution, point)]);
  for (const [indicator, target, order] of RENAMED) {
    defineHostPredicate(session, indicator, (thread, point, atom) =>
      continueWith(
        thread,
        point,
        new Term(
          target,
          order.map((index) => atom.args[index]),
        ),
      ),
    );
  }

  defineHostPredicate(session, 'atom_string/2', (thread, point, atom) => {
    const [left, right] = atom.args;
    if (!pl.type.is_variable(left)) {
      if (!pl.type.is_atomic(left)) return thread.throw_error(pl.error.type('atomic', left, atom.indicator));
      return continueWith(
        thread,
        point,
        new Term('=', [right, new Term(pl.type.is_atom(left) ? left.id : String(left.value), [])]),
      );
    }
    if (pl.type.is_variable(right)) return thread.throw_error(pl.error.instantiation(atom.indicator));
    if (!pl.type.is_atomic(right)) return thread.throw_error(pl.error.type('atomic', right, atom.indicator));
    continueWith(
      thread,
      point,
      new Term('=', [left, new Term(pl.type.is_atom(right) ? right.id : String(right.value), [])]),
    );
  });

  defineHostPredicate(session, 'number_string/2', (thread, point, atom) => {
    const [number, text] = atom.args;
    if (!pl.type.is_variable(text)) {
      if (pl.type.is_atom(text)) spendText(text.id.length);
      const source = pl.type.is_atom(text) ? text.id.trim() : undefined;
      if (source === undefined) return thread.throw_error(pl.error.type('atom', text, atom.indicator));
      // A Prolog number's syntax (no hex, no Infinity): anything else is a syntax error, as in SWI.
      if (!/^[+-]?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(source))
        return thread.throw_error(
          new Term('error', [new Term('syntax_error', [new Term('illegal_number', [])]), new Term(atom.indicator, [])]),
        );
      const value = Number(source);
      return continueWith(
        thread,
        point,
        new Term('=', [number, new pl.type.Num(value, !Number.isInteger(value) || /[.eE]/.test(source))]),
      );
    }
    if (!pl.type.is_number(number))
      return thread.throw_error(
        pl.type.is_variable(number)
          ? pl.error.instantiation(atom.indicator)
          : pl.error.type('number', number, atom.indicator),
      );
    continueWith(thread, point, new Term('=', [text, new Term(String(number.value), [])]));
  });

  const termText = (thread: TauThread, point: any, atom: TauTerm, term: TauTerm, text: TauTerm) => {
    if (!pl.type.is_variable(term)) {
      // Written first (each node ticks the work meter), then its characters are charged and held.
      const written = term.toString({ quoted: true, session: thread.session }) as string;
      spendText(written.length);
      buildsText(written.length);
      return continueWith(thread, point, new Term('=', [text, new Term(written, [])]));
    }
    if (pl.type.is_variable(text)) return thread.throw_error(pl.error.instantiation(atom.indicator));
    if (!pl.type.is_atom(text)) return thread.throw_error(pl.error.type('atom', text, atom.indicator));
    spendText(text.id.length); // parsing reads every character
    let read: TauTerm | undefined;
    try {
      for (const chunkTerm of readChunkTerms(`${text.id} .`, thread)) {
        if (read !== undefined) throw new PrologSyntax('one term expected', chunkTerm.line);
        thread.session.renamed_variables = {};
        read = chunkTerm.term.rename(thread);
      }
    } catch (error) {
      if (!(error instanceof PrologSyntax)) throw error;
      return thread.throw_error(
        new Term('error', [new Term('syntax_error', [new Term(error.message, [])]), new Term(atom.indicator, [])]),
      );
    }
    if (read === undefined)
      return thread.throw_error(
        new Term('error', [new Term('syntax_error', [new Term('end_of_file', [])]), new Term(atom.indicator, [])]),
      );
    continueWith(thread, point, new Term('=', [term, read]));
  };
  defineHostPredicate(session, 'term_to_atom/2', (thread, point, atom) =>
    termText(thread, point, atom, atom.args[0], atom.args[1]),
  );
  defineHostPredicate(session, 'term_string/2', (thread, point, atom) =>
    termText(thread, point, atom, atom.args[0], atom.args[1]),
  );
}
