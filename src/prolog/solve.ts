/**
 * The sandbox's own step loop over a tau thread. tau's `answer` reports through `setTimeout`
 * and counts its limit where Prolog cannot see it; this loop does the same synchronously and
 * adds the rest of the sandbox's checks, every one outside Prolog's reach (`catch/3` never sees
 * them): the inference budget, the stack-depth budget, the term-work meter (term traversals and
 * the characters text built-ins read or build), the run's signal and the host's interrupt. The
 * signal and the interrupt are checked every CHECK_EVERY inferences and every CHECK_WORK_EVERY
 * units of work, so one inference that does a lot of work cannot hold the event loop past them.
 */
import { pl, setWorkMeter, type TauTerm, type TauThread } from '#prolog-vm';
import { PrologBudgetExceeded, setTextMeter } from './tau-patches.js';
import type { PrologBudget } from './prolog-budget.js';
import { stepFrameState, unwindError } from './catch-frames.js';

/** A Prolog exception no handler caught: `term` is the thrown term. */
export class PrologThrown extends Error {
  constructor(readonly term: TauTerm) {
    super('uncaught Prolog exception');
  }
}

/** A goal that needs tau's asynchronous machinery (none in the sandbox; kept as a guard). */
export class PrologAsyncGoal extends Error {}

export interface SolveControl {
  readonly budget: Required<PrologBudget>;
  /** Inferences and term-traversal steps so far in this call (all goals of a chunk share the budgets). */
  inferences: number;
  work: number;
  /**
   * Live memory, in term cells: `cells` built on the current branch (given back when the call
   * backtracks past them: the states that held them are gone) and `retained` ones no
   * backtracking frees (asserted clauses, findall's collected solutions). Their sum is held to
   * `termCells`.
   */
  cells: number;
  retained: number;
  /** Called every CHECK_EVERY steps and CHECK_WORK_EVERY units of work: signal and interrupt. */
  check(): void;
}

/** Steps between the checks that cost more than a counter. */
const CHECK_EVERY = 512;
/** Units of term and text work between the same checks (a power of two: a mask tests it). */
const CHECK_WORK_EVERY = 4096;

/** Solves `goal` once. Returns the answer's substitution, or null when the goal fails. */
export function solveOnce(thread: TauThread, goal: TauTerm, control: SolveControl): any | null {
  thread.points = [];
  thread.add_goal(goal);
  const { termWork, termCells } = control.budget;
  setWorkMeter((allocates) => {
    if (++control.work > termWork) throw new PrologBudgetExceeded('termWork', termWork);
    if (allocates && ++control.cells + control.retained > termCells)
      throw new PrologBudgetExceeded('termCells', termCells);
    if ((control.work & (CHECK_WORK_EVERY - 1)) === 0) control.check();
  });
  setTextMeter((units) => {
    const before = control.work;
    control.work += units;
    if (control.work > termWork) throw new PrologBudgetExceeded('termWork', termWork);
    if (Math.floor(control.work / CHECK_WORK_EVERY) !== Math.floor(before / CHECK_WORK_EVERY)) control.check();
  });
  try {
    for (;;) {
      const points = thread.points as any[];
      markNewStates(points, control.cells);
      if (points.length === 0) return null;
      const head = points[points.length - 1];
      // Backtracking to an older state: what was built after it belonged to the branches that
      // failed, which tau no longer references (it keeps every state of the current branch).
      if (head[CELLS_AT] < control.cells) control.cells = head[CELLS_AT];
      if (head.goal === null) return points.pop().substitution;
      if (pl.type.is_error_state(head)) {
        const uncaught = unwindError(thread);
        if (uncaught !== undefined) throw new PrologThrown(uncaught);
        continue;
      }
      if (stepFrameState(thread)) continue;
      if (++control.inferences > control.budget.instructions)
        throw new PrologBudgetExceeded('instructions', control.budget.instructions);
      if (control.inferences % CHECK_EVERY === 0) {
        control.check();
        if (points.length + goalDepth(head.goal, control.budget.stackDepth) > control.budget.stackDepth)
          throw new PrologBudgetExceeded('stackDepth', control.budget.stackDepth);
      }
      if (thread.step() === true) throw new PrologAsyncGoal('asynchronous goals are not available in the sandbox');
    }
  } finally {
    setWorkMeter(null);
    setTextMeter(null);
  }
}

/** The live cell count when a state was made (a property tau never reads). */
const CELLS_AT = Symbol('tea cells at');

/** Marks the states made since the last step (the unmarked ones on top) with the cell count now. */
function markNewStates(points: any[], cells: number): void {
  for (let index = points.length - 1; index >= 0 && points[index][CELLS_AT] === undefined; index--)
    points[index][CELLS_AT] = cells;
}

/** Adds cells a built-in holds (CallMeter.holdCells) to `control`; throws over `termCells`. */
export function holdCells(control: SolveControl, cells: number, retained: boolean): void {
  if (retained) control.retained += cells;
  else control.cells += cells;
  if (control.cells + control.retained > control.budget.termCells)
    throw new PrologBudgetExceeded('termCells', control.budget.termCells);
}

/** Conjunctions pending in a state's goal (its continuation), counted up to `cap`. */
function goalDepth(goal: TauTerm, cap: number): number {
  let depth = 0;
  const stack = [goal];
  while (stack.length > 0 && depth <= cap) {
    const term = stack.pop();
    if (pl.type.is_term(term) && term.indicator === ',/2') {
      depth++;
      stack.push(term.args[0], term.args[1]);
    }
  }
  return depth;
}
