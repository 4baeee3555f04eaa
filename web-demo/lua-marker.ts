/**
 * How the page tells which engine worker an agent needs: the light one (no Lua VM) or the full
 * one. Shared by the page and the light worker's Lua stand-in.
 */

/** The text the light engine puts in the error when it meets Lua. */
export const LUA_NOT_LOADED = 'LUA_ENGINE_NOT_LOADED';

/** True when an agent file plainly contains Lua (a `run:` key, or the word lua). */
export function mayUseLua(agentYaml: string): boolean {
  return /^\s*(-\s+)?run\s*:/m.test(agentYaml) || /\blua\b/i.test(agentYaml);
}
