/**
 * tea-edge/host/scripts: the script sandboxes a host passes to `loadAgent` (tea-edge/host). Lua
 * comes with its VM; Prolog is loaded on demand, only for agents that use it. Its own entry, so a
 * host that runs no inline code, or the light worker of a page, never reaches the VMs.
 *
 * @example
 *   const scripts = await withPrologWhenUsed(ALL_SCRIPT_SANDBOXES, [text]);
 *   const agent = loadAgent(text, { scripts });
 */
export { ALL_SCRIPT_SANDBOXES } from './lua/lua-script-sandbox.js';
export { usesProlog, withPrologWhenUsed } from './prolog/load-prolog.js';
