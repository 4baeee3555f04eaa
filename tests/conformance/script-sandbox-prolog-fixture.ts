/** The conformance fixture for the Prolog sandbox: the suite's scripts written in Prolog (TEA's bridge). */
import type { PrologBudget } from '../../src/prolog/prolog-budget.js';
import type { ScriptSandboxFixture } from '../../src/testing/script-sandbox-checks.js';

/** Prolog's memory budget here: clauses a call may assert. */
const MEMORY_BUDGET: PrologBudget = { clauses: 5_000 };

export const PROLOG_FIXTURE: ScriptSandboxFixture = {
  echo: 'state(input, I), return(result, I).',
  add: 'state(a, A), state(b, B), S is A + B, return(result, S).',
  syntaxError: { code: 'x(1).\nfoo( :- .\nstate(a, A).', line: 2 },
  runtimeError: { code: 'x(1).\n\n:- throw(boom).', line: 3 },
  // An unbound variable has no JSON form.
  notJson: 'return(result, _).',
  endlessLoop: 'loop :- loop.\n:- loop.',
  // The inner loop runs inside catch/3; were the budget error caught, the outer repeat would start it again.
  catchingLoop: ':- repeat, catch((repeat, fail), _, true), fail.',
  memoryHog: 'grow(N) :- assertz(fact(N)), N1 is N + 1, grow(N1).\n:- grow(0).',
  memoryBudget: MEMORY_BUDGET,
  memoryBudgetName: 'clauses',
  printThenLoop: 'loop :- loop.\n:- write(hello), nl, loop.',
  printMany: ":- forall(between(1, 1000, _), (write('0123456789'), nl)).",
  // Prolog cannot redefine a built-in (permission error), so the tampering is a clause left behind.
  leakAndTamper:
    '( catch(leaked(X), _, fail) -> true ; state(leaked, X) -> true ; X = null ), return(result, X), assertz(leaked(1)), catch(assertz(atom_length(_, 0)), _, true).',
  standardIntact: '( atom_length(abc, 3) -> V = true ; V = false ), return(result, V).',
  hugeError:
    'double(0, e) :- !.\ndouble(N, X) :- N1 is N - 1, double(N1, Y), atom_concat(Y, Y, X).\n:- double(20, X), throw(X).',
  // A 524,288-character atom (doubled 19 times), read by atom_length/2 in a failure-driven loop.
  longText: {
    loop: 'double(0, a) :- !.\ndouble(N, X) :- N1 is N - 1, double(N1, Y), atom_concat(Y, Y, X).\n:- double(19, A), repeat, atom_length(A, _), fail.',
    loopBudget: 'termWork',
    toList:
      'double(0, a) :- !.\ndouble(N, X) :- N1 is N - 1, double(N1, Y), atom_concat(Y, Y, X).\n:- double(19, A), atom_codes(A, Codes), length(Codes, N), return(result, N).',
    listBudget: 'termCells',
  },
  stateReads: {
    keys: 'state(mid, _), findall(K, state(K, _), Keys), return(result, Keys).',
    length: 'state(list, L), nth1(2, L, _), length(L, N), return(result, N).',
    twice:
      'state(mid, json(M)), member(inner=json(I), M), member(leaf=A, I), state(mid, json(M2)), member(inner=json(I2), M2), member(leaf=B, I2), return(result, [A, B]).',
    // Terms do not change: the script's changed copy is a new term.
    mutation:
      'state(mid, json(M)), select(x=_, M, Rest), Changed = [x=99|Rest], member(x=Seen, Changed), state(alpha, A), return(result, json([seen=Seen, alpha=A])).',
    readSmall: 'state(small, S), return(result, S).',
    readBig: 'state(big, [First | _]), return(result, First).',
    // The list of 3,000 numbers is 6,001 term cells.
    readBudget: { termCells: 3_000 } as PrologBudget,
    readBudgetName: 'termCells',
  },
  resultValue: (result) => (result as { result?: unknown }).result ?? null,
};
