/**
 * A predicate tea-edge implements in JavaScript for one session (`return/2`, `tea_load_code/1`,
 * `dynamic/1`, …), in its user module. It is callable like a built-in and, like one, cannot be
 * modified: `assertz(return(a, b))` or `retract(dynamic(_))` is permission_error(modify,
 * static_procedure, …), where tau would otherwise try to add a clause to a function and crash.
 */
import type { TauBuiltin, TauSession } from '#prolog-vm';

export function defineHostPredicate(session: TauSession, indicator: string, run: TauBuiltin): void {
  const user = session.modules.user;
  user.rules[indicator] = run;
  // tau lets assert/retract touch a user predicate unless it is marked not public.
  user.public_predicates[indicator] = false;
}
