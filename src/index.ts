/**
 * tea-edge: run YAML-declared LLM agents (The Edge Agent format) with reflection and reasoning,
 * the same on edge workers, in the browser and on Node. This is the curated public API: the
 * engine (`tea-edge/engine`, src/engine.ts) with everything passed in: `loadAgent` and
 * `compileAgent` here use every built-in action and Lua unless told otherwise. A host that must
 * stay small imports the engine and the action sets it needs instead (docs/architecture.md,
 * "What to import").
 */

export * from './engine.js';
// These two replace the engine's of the same name (an explicit export wins over `export *`).
export { loadAgent, compileAgent } from './load-agent-with-scripts.js';

// Inline code: the Lua sandbox (loadAgent above passes it)
export { luaSandbox, ALL_SCRIPT_SANDBOXES } from './lua/lua-script-sandbox.js';
// Prolog is loaded on demand (its own chunk): loadAgent(text, { scripts: await withPrologWhenUsed(ALL_SCRIPT_SANDBOXES, [text]) })
export { loadPrologSandbox, usesProlog, withPrologWhenUsed } from './prolog/load-prolog.js';

// Actions: every built-in one, and the host's own
export { createActionRegistry } from './builtins.js';

// Reflection review
export { reviewRun } from './reflection/review/review-on-demand.js';
