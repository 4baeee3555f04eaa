/**
 * One clean tau session per call: nothing a call asserts, prints or sets (flags, operators)
 * reaches the next. The session gets TEA's bridge (`state/2` answering from the globals as read, `return/2`
 * recording the node's update), lists pre-loaded as TEA does, double-quoted text read as atoms
 * (SWI reads strings; both become JSON strings), and an output stream capped at the budget.
 */
import { pl, type TauSession, type TauTerm, type TauThread } from '#prolog-vm';
import { fromTerm } from './json-terms.js';
import type { StateFacts } from './state-facts.js';
import { patchTauBuiltins } from './tau-patches.js';
import { installSwiDeclarations } from './swi-declarations.js';
import { installTeaLoadCode } from './tea-load-code.js';
import { installSwiFormat } from './swi-format.js';
import { installSwiText } from './swi-text.js';
import { installSwiDicts } from './swi-dicts.js';
import { defineHostPredicate } from './host-predicate.js';

const { Term, Stream, State } = pl.type as any;

export interface SessionBridge {
  /** What `state(Key, Value)` answers. */
  facts: StateFacts;
  /** `return(Key, Value)` calls, in order (a later one for the same key wins). */
  returns: Record<string, unknown>;
  /** Printed text, cut at `printBytes`. */
  print(text: string): void;
}

/** A fresh sandboxed session with the bridge installed. */
export function createSession(bridge: SessionBridge): { session: TauSession; thread: TauThread } {
  patchTauBuiltins();
  const session = pl.create();
  const thread = session.thread;
  const output = new Stream(
    {
      put: (text: string) => {
        bridge.print(text);
        return true;
      },
      flush: () => true,
    },
    'append',
    'user_output',
    'text',
    false,
    'reset',
  );
  session.streams.user_output = output;
  session.streams.user_error = output;
  session.standard_output = output;
  session.standard_error = output;
  session.current_output = output;
  session.flag.double_quotes = new Term('atom', []);
  installSwiDeclarations(session);
  installTeaLoadCode(session);
  installSwiFormat(session);
  installSwiText(session);
  installSwiDicts(session);
  // state/2 answers as one static fact per key would (a missing key fails), converting a value
  // only when a goal asks for it.
  defineHostPredicate(session, 'state/2', (thread: TauThread, point: any, atom: TauTerm) => {
    const [key, value] = atom.args;
    if (pl.type.is_atom(key)) {
      const term = bridge.facts.term(key.id);
      if (term !== undefined) unifyAndContinue(thread, point, value, term);
      return;
    }
    if (!pl.type.is_variable(key)) return;
    // One answer per key, each trying `state(Key, Value)` with the key bound: converted when tried.
    const answers = [];
    for (const name of bridge.facts.keys()) {
      const bound = new Term(name, []);
      const binding = pl.unify(key, bound, false);
      answers.push(
        new State(
          point.goal.apply(binding).replace(new Term('state', [bound, value.apply(binding)])),
          point.substitution.apply(binding),
          point,
        ),
      );
    }
    thread.prepend(answers);
  });
  defineHostPredicate(session, 'return/2', (thread: TauThread, point: any, atom: TauTerm) => {
    const key = atom.args[0];
    if (pl.type.is_variable(key)) return thread.throw_error(pl.error.instantiation(atom.indicator));
    if (!pl.type.is_atom(key)) return thread.throw_error(pl.error.type('atom', key, atom.indicator));
    // An unbound variable has no JSON form (SWI would hand back its internal name).
    if (!atom.args[1].ground) return thread.throw_error(pl.error.instantiation(atom.indicator));
    bridge.returns[key.id] = fromTerm(atom.args[1]);
    thread.success(point);
  });
  return { session, thread };
}

/** Unifies `left` and `right` (as `=/2` does) and goes on with the rest of `point`'s goal; fails when they do not unify. */
function unifyAndContinue(thread: TauThread, point: any, left: TauTerm, right: TauTerm): void {
  const binding = pl.unify(left, right, thread.get_flag('occurs_check').indicator === 'true/0');
  if (binding === null) return;
  thread.prepend([new State(point.goal.apply(binding).replace(null), point.substitution.apply(binding), point)]);
}

/** The goal that pre-loads what TEA pre-loads (lists; apply and aggregate live in lists in tau). */
export const PRELUDE_GOAL = new Term('use_module', [new Term('library', [new Term('lists', [])])]);
