/**
 * What running a node body needs from the run (budgets, clock, deadline, the action context's
 * host). Its own module so the body runners (execute-body.ts, while-loop.ts, dynamic-parallel.ts)
 * can share it without importing each other.
 */
import type { PauseRequest } from '../core/action.js';
import type { ContextHost } from './action-context.js';

export interface BodyHost extends ContextHost {
  readonly luaInstructions: number | undefined;
  /** Counts one node visit (or loop-body / branch step) against max_steps. */
  stepBudget(node: string): void;
  now(): number;
  /** Throws when the run's duration budget is spent: Lua is synchronous, so no timer can cut it. */
  checkDeadline(node: string): void;
  /** Lets the host's event loop run when the run has worked a while without waiting (host-yield.ts). */
  breathe(): Promise<void>;
}

/** A body's state update, or the PauseRequest its action returned. */
export type BodyResult = Record<string, unknown> | PauseRequest;
