/**
 * What the sandbox changes in tau-prolog's shared built-ins, once per module load: predicates that
 * reach files, streams or the process are refused with a permission error, built-ins that can
 * build a large atom, list or database in one step check the running call's budget first, and
 * every built-in that reads or builds text charges its characters to the work meter before it
 * runs (spendText), holding the lists and choice points it makes to the cell budget. Budget
 * checks throw `PrologBudgetExceeded`, a JavaScript exception that leaves tau's step loop: no
 * Prolog handler runs after it. `currentCall` is the call being solved (calls are synchronous,
 * so at most one runs at a time in a JavaScript realm).
 */
import { pl, type TauBuiltin, type TauTerm, type TauThread } from '#prolog-vm';
import type { PrologBudget } from './prolog-budget.js';
import { listItems } from './json-terms.js';
import { catchBuiltin, catchExitBuiltin } from './catch-frames.js';

const { Term, Num } = pl.type;

/** A budget ran out; thrown through tau's loop, caught by the sandbox's driver. */
export class PrologBudgetExceeded extends Error {
  constructor(
    readonly budget: keyof PrologBudget,
    readonly limit: number,
  ) {
    super(`over the Prolog budget '${budget}' (${limit})`);
  }
}

/** The counters of the call being solved. */
export interface CallMeter {
  readonly budget: Required<PrologBudget>;
  clauses: number;
  /**
   * Cells a built-in keeps alive beyond backtracking (an asserted clause, a solution findall/3
   * collects), or text it builds (an atom's characters, counted as cells): added to the call's
   * live-memory count (solve.ts), which throws when it is over `termCells`.
   */
  holdCells?(cells: number, retained: boolean): void;
}

let currentCall: CallMeter | null = null;

/**
 * The running call's meter of text work (solve.ts sets it with the term-work meter): `units` are
 * characters read, scanned or built, and comparisons a built-in makes; it throws over `termWork`
 * and checks the signal and deadline as the work grows.
 */
let textMeter: ((units: number) => void) | null = null;

export function setTextMeter(meter: ((units: number) => void) | null): void {
  textMeter = meter;
}

/** Charges `units` of text work to the running call (no call: nothing). */
export function spendText(units: number): void {
  if (units > 0) textMeter?.(units);
}

/** Runs `fn` with `meter` as the current call's meter. */
export function withCallMeter<T>(meter: CallMeter, fn: () => T): T {
  const previous = currentCall;
  currentCall = meter;
  try {
    return fn();
  } finally {
    currentCall = previous;
  }
}

/** Throws PrologBudgetExceeded when `amount` is over the current call's `budget` (no call: nothing). */
export function spend(budget: 'atomLength' | 'listLength' | 'clauses', amount: number): void {
  if (currentCall === null) return;
  const limit = currentCall.budget[budget];
  if (amount > limit) throw new PrologBudgetExceeded(budget, limit);
}

function indicatorTerm(atom: TauTerm): TauTerm {
  return new Term('/', [new Term(atom.id, []), new Num(atom.args.length, false)]);
}

/** Files, streams other than the call's output, the process, and user input (a browser prompt). */
const DENIED = [
  'open/3',
  'open/4',
  'close/1',
  'close/2',
  'consult/1',
  'halt/0',
  'halt/1',
  'set_input/1',
  'set_output/1',
  'set_stream_position/2',
  'read/1',
  'read/2',
  'read_term/2',
  'read_term/3',
  'get_char/1',
  'get_char/2',
  'get_code/1',
  'get_code/2',
  'get_byte/1',
  'get_byte/2',
  'peek_char/1',
  'peek_char/2',
  'peek_code/1',
  'peek_code/2',
  'peek_byte/1',
  'peek_byte/2',
  'at_end_of_stream/0',
  'at_end_of_stream/1',
  'char_conversion/2',
  // These run their goal in a nested tau thread the sandbox does not drive (see catch-frames.ts).
  'call_cleanup/2',
  'setup_call_cleanup/3',
];

/** Libraries TEA pre-loads that tau provides (lists) or needs nothing for (apply: maplist, foldl… are in lists). */
const PRELOADED_LIBRARIES = new Set(['lists', 'apply', 'aggregate']);

const refuse: TauBuiltin = (thread, _point, atom) => {
  thread.throw_error(pl.error.permission('access', 'private_procedure', indicatorTerm(atom), atom.indicator));
};

/** Characters of text that cost as much memory as one term cell (UTF-16, ~150 bytes a cell). */
const CHARS_PER_CELL = 64;

/** A built-in is about to build an atom of `length` characters: one atom's cap, and its memory. */
export function buildsText(length: number): void {
  spend('atomLength', length);
  currentCall?.holdCells?.(Math.ceil(length / CHARS_PER_CELL), false);
}

/** A built-in is about to build a list of `length` characters or codes: two cells an element. */
function buildsList(length: number): void {
  spend('listLength', length);
  currentCall?.holdCells?.(2 * length, false);
}

/**
 * What one (start, length) pair of sub_atom/5 costs in characters' work: tau walks the pairs with
 * `for…in` over arrays of indexes, measured at about 20 times a character of atom_length/2.
 */
const PAIR_COST = 20;

/** Cells a choice point and the goal it holds cost, at least. */
const CELLS_PER_STATE = 4;

/** A built-in is about to push `count` choice points, each a solution to try on backtracking. */
function pushesStates(count: number): void {
  currentCall?.holdCells?.(count * CELLS_PER_STATE, false);
}

/** Elements of a proper or partial list (what a list → text built-in walks). */
function listLength(term: TauTerm): number {
  let length = 0;
  for (let pointer = term; pl.type.is_term(pointer) && pointer.indicator === './2'; pointer = pointer.args[1]) length++;
  return length;
}

/**
 * The text built-ins: each charges the characters it scans or builds before it runs, and holds
 * the list or the choice points it makes. tau's sub_atom/5 loops over every (start, length) pair
 * an unbound argument allows and checks each solution against the whole atom, so that is what it
 * costs; atom_concat/3 with the whole atom alone bound makes one choice point a split.
 */
function guardText(system: Record<string, unknown>): void {
  guard(system, 'atom_length/2', (atom) => spendText(atomicLength(atom.args[0])));
  guard(system, 'atom_concat/3', (atom) => {
    const [start, end, whole] = atom.args;
    spendText(atomicLength(start) + atomicLength(end) + atomicLength(whole));
    if (pl.type.is_variable(start) && pl.type.is_variable(end) && pl.type.is_atom(whole))
      pushesStates(whole.id.length + 1);
    buildsText(atomicLength(start) + atomicLength(end));
  });
  guard(system, 'atomic_concat/3', (atom) => {
    spendText(atomicLength(atom.args[0]) + atomicLength(atom.args[1]));
    buildsText(atomicLength(atom.args[0]) + atomicLength(atom.args[1]));
  });
  guard(system, 'sub_atom/5', (atom) => {
    const [text, before, length, after] = atom.args;
    if (!pl.type.is_atom(text)) return;
    const size = text.id.length;
    const choices = (term: TauTerm) => (pl.type.is_variable(term) ? size + 1 : 1);
    const pairs = choices(before) * choices(length);
    const solutions = pl.type.is_variable(after) ? pairs : Math.min(choices(before), choices(length));
    // An index array per unbound argument, every pair, and each solution checked against the whole atom.
    const arrays = [before, length, after].filter((term) => pl.type.is_variable(term)).length * (size + 1);
    spendText(arrays + pairs * PAIR_COST + solutions * size);
    pushesStates(solutions);
  });
  for (const indicator of ['atom_codes/2', 'atom_chars/2', 'number_codes/2', 'number_chars/2']) {
    guard(system, indicator, (atom) => {
      const [text, list] = atom.args;
      if (pl.type.is_atom(text) || pl.type.is_number(text)) {
        const length = atomicLength(text);
        spendText(length);
        buildsList(length);
      } else {
        const length = listLength(list);
        spendText(length);
        buildsText(length);
      }
    });
  }
  for (const indicator of ['upcase_atom/2', 'downcase_atom/2']) {
    guard(system, indicator, (atom) => {
      spendText(atomicLength(atom.args[0]));
      buildsText(atomicLength(atom.args[0]));
    });
  }
  const joined = (atom: TauTerm) => {
    const length = (listItems(atom.args[0]) ?? []).reduce(
      (sum: number, item: TauTerm) =>
        sum + atomicLength(item) + (atom.args.length === 3 ? atomicLength(atom.args[1]) : 0),
      0,
    );
    spendText(length);
    buildsText(length);
  };
  guard(system, 'atomic_list_concat/2', joined);
  guard(system, 'atomic_list_concat/3', joined);
}

/** Cells of `term` as a tree (shared subterms counted each time, as a copy builds them), up to `cap`. */
function treeSize(term: TauTerm, cap: number): number {
  let size = 0;
  const stack = [term];
  while (stack.length > 0 && size < cap) {
    const item = stack.pop();
    size += 1 + (pl.type.is_atom(item) ? Math.floor(item.id.length / CHARS_PER_CELL) : 0);
    if (pl.type.is_term(item)) for (const arg of item.args) stack.push(arg);
  }
  return size;
}

function atomicLength(term: TauTerm): number {
  if (pl.type.is_atom(term)) return term.id.length;
  if (pl.type.is_number(term)) return String(term.value).length;
  return 0;
}

/** Wraps a built-in with a check that runs before it. */
function guard(rules: Record<string, unknown>, indicator: string, check: (atom: TauTerm) => void): void {
  const original = rules[indicator];
  if (typeof original !== 'function')
    throw new Error(`tau-prolog: built-in ${indicator} not found (upgrade changed it)`);
  rules[indicator] = ((thread: TauThread, point: unknown, atom: TauTerm) => {
    check(atom);
    return (original as TauBuiltin)(thread, point, atom);
  }) as TauBuiltin;
}

let patched = false;

/** Applies the sandbox's changes to tau's built-ins (idempotent). */
export function patchTauBuiltins(): void {
  if (patched) return;
  patched = true;
  const system = pl.modules.system!.rules as Record<string, unknown>;
  const lists = pl.modules.lists!.rules as Record<string, unknown>;
  for (const indicator of DENIED) system[indicator] = refuse;
  system['catch/3'] = catchBuiltin;
  system['$tea_catch_exit/1'] = catchExitBuiltin;
  // A directive in tau, a goal here (TEA runs `:- Goal` as a goal): lists loads, the other
  // libraries TEA pre-loads succeed, any other library is an existence error naming it.
  system['use_module/1'] = ((thread: TauThread, point: any, atom: TauTerm) => {
    const spec = atom.args[0];
    const name =
      pl.type.is_term(spec) && spec.indicator === 'library/1' && pl.type.is_atom(spec.args[0])
        ? spec.args[0].id
        : undefined;
    if (name === 'lists') pl.directive['use_module/1']!(thread, atom, { context_module: 'user' });
    if (name !== undefined && PRELOADED_LIBRARIES.has(name)) return thread.success(point);
    thread.throw_error(pl.error.existence('library', spec, atom.indicator));
  }) as TauBuiltin;
  // SWI's `discontiguous/1` declaration: clauses may be anywhere in tau already.
  system['discontiguous/1'] = ((thread: TauThread, point: any) => thread.success(point)) as TauBuiltin;
  const countClause = (atom: TauTerm) => {
    if (currentCall === null) return;
    currentCall.clauses++;
    spend('clauses', currentCall.clauses);
    currentCall.holdCells?.(treeSize(atom.args[0], currentCall.budget.termCells + 1), true);
  };
  // findall/3, bagof/3, setof/3 and forall/2 collect solutions on a stack that backtracking keeps.
  guard(system, '$push_global_stack/2', (atom) =>
    currentCall?.holdCells?.(treeSize(atom.args[1], currentCall.budget.termCells + 1), true),
  );
  guard(system, 'assertz/1', countClause);
  guard(system, 'asserta/1', countClause);
  guardText(system);
  const listOf = (index: number) => (atom: TauTerm) => {
    const size = atom.args[index];
    if (pl.type.is_integer(size)) spend('listLength', size.value);
  };
  guard(lists, 'length/2', listOf(1));
  guard(lists, 'replicate/3', listOf(0));
}
