/**
 * `tea_load_code(+Text)`: TEA's way to load Prolog a model wrote (facts, rules, queries) into the
 * running call, the core of its neurosymbolic agents (an LLM extracts facts, rules reason over
 * them). The text is read term by term as a chunk is (tea-reading.ts) and its goals run in order,
 * inside the same call: under the same budgets (a flood of facts meets `clauses`, a long text
 * `atomLength` before it gets here), in the same clean session, so nothing outlives the call.
 * A syntax error is thrown as `error(syntax_error(What), tea_load_code/1)`, catchable like any
 * Prolog error; uncaught it is PROLOG_ERROR naming the line of the calling term.
 *
 * The goals run one after the other through a continuation, `'$tea_load_next'(Batch, Index)`,
 * rather than as one conjunction: a conjunction of n goals is rewritten at every step, so 3,000
 * facts would cost millions of term steps (and meet `termWork` instead of `clauses`).
 */
import { pl, type TauSession, type TauTerm, type TauThread } from '#prolog-vm';
import { defineHostPredicate } from './host-predicate.js';
import { goalOf, PrologSyntax, readChunkTerms } from './tea-reading.js';

const { Term, Num, State } = pl.type;

export function installTeaLoadCode(session: TauSession): void {
  // The goals of each tea_load_code call in this session (it lives as long as the call).
  const batches: TauTerm[][] = [];
  const next = (batch: number, index: number) =>
    new Term('$tea_load_next', [new Num(batch, false), new Num(index, false)]);

  defineHostPredicate(session, 'tea_load_code/1', (thread: TauThread, point: any, atom: TauTerm) => {
    const text = atom.args[0];
    if (pl.type.is_variable(text)) return thread.throw_error(pl.error.instantiation(atom.indicator));
    if (!pl.type.is_atom(text)) return thread.throw_error(pl.error.type('atom', text, atom.indicator));
    const goals: TauTerm[] = [];
    try {
      for (const { term } of readChunkTerms(text.id, thread)) {
        // Each term's variables are its own (and none is the caller's of the same name).
        thread.session.renamed_variables = {};
        goals.push(goalOf(term.rename(thread)));
      }
    } catch (error) {
      if (!(error instanceof PrologSyntax)) throw error;
      const where = error.line !== undefined ? ` on line ${error.line}` : '';
      return thread.throw_error(
        new Term('error', [
          new Term('syntax_error', [new Term(`${error.message}${where}`, [])]),
          new Term('/', [new Term('tea_load_code', []), new Num(1, false)]),
        ]),
      );
    }
    batches.push(goals);
    thread.prepend([new State(point.goal.replace(next(batches.length - 1, 0)), point.substitution, point)]);
  });

  defineHostPredicate(session, '$tea_load_next/2', (thread: TauThread, point: any, atom: TauTerm) => {
    const [batch, index] = atom.args;
    const goals = pl.type.is_integer(batch) && pl.type.is_integer(index) ? batches[batch.value] : undefined;
    if (goals === undefined)
      return thread.throw_error(pl.error.existence('procedure', new Term('$tea_load_next', []), atom.indicator));
    if (index.value >= goals.length) return thread.success(point);
    thread.prepend([
      new State(
        point.goal.replace(new Term(',', [goals[index.value], next(batch.value, index.value + 1)])),
        point.substitution,
        point,
      ),
    ]);
  });
}
