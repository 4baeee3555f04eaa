/**
 * Prolog on demand: the engine is a separate chunk (tau-prolog, ~53 KB gzipped) that hosts load
 * only for agents that use it, so an agent without Prolog pays nothing. `usesProlog` reads the
 * agent text (before parsing: a host decides what to load before it can compile); a false
 * positive only loads the engine, a miss cannot happen for the forms TEA reads as Prolog.
 */
import type { ScriptSandbox, ScriptSandboxes } from '../core/script-sandbox.js';

/**
 * `language: prolog`, `type: prolog`, `prolog.query`, a `run:` starting with `% prolog`, and the
 * signs TEA's auto-detection reads in a `run:` with no language (`:-`, `state(key, …`, `return(key, …`).
 */
const PROLOG_MARKERS =
  /\blanguage:\s*["']?prolog\b|\btype:\s*["']?prolog\b|\bprolog\.query\b|%\s*prolog\b|:-|\b(?:state|return)\(\s*[a-z]\w*\s*,/im;

/** Whether an agent's text may contain Prolog. */
export function usesProlog(agentText: string): boolean {
  return PROLOG_MARKERS.test(agentText);
}

/** The Prolog sandbox, loaded (a dynamic import: its own chunk in every bundle). */
export async function loadPrologSandbox(): Promise<ScriptSandbox> {
  return (await import('./prolog-script-sandbox.js')).prologSandbox;
}

/** `scripts` plus Prolog when any of the agent texts uses it. */
export async function withPrologWhenUsed(
  scripts: ScriptSandboxes,
  agentTexts: readonly string[],
): Promise<ScriptSandboxes> {
  if (scripts.prolog !== undefined || !agentTexts.some(usesProlog)) return scripts;
  return Object.freeze({ ...scripts, prolog: await loadPrologSandbox() });
}
