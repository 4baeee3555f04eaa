/**
 * catch/3 on the sandbox's own step loop. tau's catch/3 runs its goal in a nested thread whose
 * loop tea-edge does not drive (no inference count, answers through `setTimeout`), so the
 * sandbox replaces it: entering `catch(G, C, R)` pushes a frame state below the state running
 * `call(G), '$tea_catch_exit'(Id)`. The solve loop (solve.ts) unwinds an uncaught error to the
 * nearest active frame whose catcher unifies; a frame reached by backtracking just fails. The exit
 * goal deactivates the frame (an error after G succeeded is not G's), and leaves a state that
 * reactivates it if execution backtracks into G. Budget errors are JavaScript exceptions, not
 * Prolog errors: they never reach a frame.
 */
import { pl, type TauBuiltin, type TauTerm, type TauThread } from '#prolog-vm';

const { Term, Num, State } = pl.type as any;

/** What a frame state carries. */
interface CatchFrame {
  catcher: TauTerm;
  recovery: TauTerm;
  /** The state that called catch/3: where the recovery continues. */
  point: any;
  active: boolean;
}

const framesOf = new WeakMap<TauThread, any[]>();

export const catchBuiltin: TauBuiltin = (thread, point, atom) => {
  const [goal, catcher, recovery] = atom.args;
  const frames = framesOf.get(thread) ?? [];
  framesOf.set(thread, frames);
  const frameState = new State(new Term('fail', []), point.substitution, point);
  frameState.teaCatch = { catcher, recovery, point, active: true } satisfies CatchFrame;
  frames.push(frameState);
  const body = new Term(',', [
    new Term('call', [goal]),
    new Term('$tea_catch_exit', [new Num(frames.length - 1, false)]),
  ]);
  thread.prepend([new State(point.goal.replace(body), point.substitution, point), frameState]);
};

export const catchExitBuiltin: TauBuiltin = (thread, point, atom) => {
  const frameState = framesOf.get(thread)?.[atom.args[0].value];
  const reactivate = new State(new Term('fail', []), point.substitution, point);
  reactivate.teaReactivate = frameState;
  if (frameState !== undefined) frameState.teaCatch.active = false;
  thread.prepend([new State(point.goal.replace(null), point.substitution, point), reactivate]);
};

/**
 * Handles the sandbox's own states at the top of the stack: returns true when it consumed one
 * (a frame reached by backtracking, a reactivation), so the loop looks at the stack again.
 */
export function stepFrameState(thread: TauThread): boolean {
  const points = thread.points as any[];
  const head = points[points.length - 1];
  if (head.teaCatch !== undefined) {
    points.pop();
    return true;
  }
  if (head.teaReactivate !== undefined) {
    head.teaReactivate.teaCatch.active = true;
    points.pop();
    return true;
  }
  return false;
}

/**
 * Unwinds the error at the top of the stack to the nearest active frame whose catcher unifies
 * with it and continues with its recovery; returns the error term when no frame catches it.
 */
export function unwindError(thread: TauThread): TauTerm | undefined {
  const points = thread.points as any[];
  const ball = points.pop().goal.args[0];
  while (points.length > 0) {
    const state = points.pop();
    const frame: CatchFrame | undefined = state.teaCatch;
    if (frame === undefined || !frame.active) continue;
    const mgu = pl.unify(ball, frame.catcher, false);
    if (mgu === null) continue;
    const recovery = new State(
      frame.point.goal.replace(frame.recovery).apply(mgu),
      frame.point.substitution.apply(mgu),
      frame.point,
    );
    points.push(recovery);
    return undefined;
  }
  return ball;
}
