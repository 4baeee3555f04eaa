/**
 * `tea-edge/prolog`: Prolog for agents. The sandbox is its own chunk, loaded on demand
 * (`loadAgent(text, { scripts: { prolog: await loadPrologSandbox() } })`, or
 * `withPrologWhenUsed(scripts, [text])` to load it only when the agent has Prolog);
 * `prologActions` adds `prolog.query`, which runs in that sandbox.
 */
import type { ActionDefinition } from '../core/action.js';
import { prologQueryAction } from '../prolog/prolog-query-action.js';

/** prolog.query. */
export function prologActions(): ActionDefinition[] {
  return [prologQueryAction as ActionDefinition];
}

export { loadPrologSandbox, usesProlog, withPrologWhenUsed } from '../prolog/load-prolog.js';
