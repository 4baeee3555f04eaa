/**
 * One clean tau session per call: nothing a call asserts, prints or sets (flags, operators)
 * reaches the next. The session gets TEA's bridge (`state/2` facts from the globals, `return/2`
 * recording the node's update), lists pre-loaded as TEA does, double-quoted text read as atoms
 * (SWI reads strings; both become JSON strings), and an output stream capped at the budget.
 */
import { pl, type TauSession, type TauTerm, type TauThread } from '#prolog-vm';
import { fromTerm, toTerm } from './json-terms.js';
import { patchTauBuiltins } from './tau-patches.js';
import { installSwiDeclarations } from './swi-declarations.js';
import { installTeaLoadCode } from './tea-load-code.js';
import { installSwiFormat } from './swi-format.js';
import { installSwiText } from './swi-text.js';
import { installSwiDicts } from './swi-dicts.js';
import { defineHostPredicate } from './host-predicate.js';

const { Term, Stream, Rule } = pl.type as any;

export interface SessionBridge {
  /** The facts `state(Key, Value)` answers. */
  facts: Record<string, unknown>;
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
  const output = new Stream({ put: (text: string) => (bridge.print(text), true), flush: () => true }, 'append', 'user_output', 'text', false, 'reset');
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
  for (const [key, value] of Object.entries(bridge.facts)) {
    thread.add_rule(new Rule(new Term('state', [new Term(key, []), toTerm(value)]), null), { context_module: 'user' });
  }
  // state/2 exists even for an empty state: a missing key fails, it is not an unknown predicate.
  session.modules.user.rules['state/2'] ??= [];
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

/** The goal that pre-loads what TEA pre-loads (lists; apply and aggregate live in lists in tau). */
export const PRELUDE_GOAL = new Term('use_module', [new Term('library', [new Term('lists', [])])]);
