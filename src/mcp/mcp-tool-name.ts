/**
 * `mcp.<server>.<tool>` tool names, checked at agent load (docs/mcp.md). Kept apart from the MCP
 * client and the full settings reader so that what every agent loads stays small: the agent
 * schema has already checked the shape of `settings.mcp`, and the rest of MCP is a lazy chunk.
 */
import { isPlainObject } from '../util/plain-object.js';

/** Prefix of tool names that come from an MCP server. */
export const MCP_TOOL_PREFIX = 'mcp.';

/** `mcp.docs.search` → {server: 'docs', tool: 'search'}; undefined for other names. */
export function splitMcpToolName(name: string): { server: string; tool: string } | undefined {
  if (!name.startsWith(MCP_TOOL_PREFIX)) return undefined;
  const rest = name.slice(MCP_TOOL_PREFIX.length);
  const dot = rest.indexOf('.');
  if (dot <= 0 || dot === rest.length - 1) return undefined;
  return { server: rest.slice(0, dot), tool: rest.slice(dot + 1) };
}

/**
 * Checks a `mcp.<server>.<tool>` tool name against the settings at load: the server must be
 * declared and the tool on its allow-list. Returns the pair, or why not.
 */
export function checkMcpToolName(
  name: string,
  settings: Readonly<Record<string, unknown>>,
): { server: string; tool: string } | { error: string } {
  const parts = splitMcpToolName(name);
  if (parts === undefined) return { error: `'${name}' is not mcp.<server>.<tool>` };
  const mcp = settings['mcp'];
  const servers = isPlainObject(mcp) && Array.isArray(mcp['servers']) ? mcp['servers'] : [];
  const server = servers.filter(isPlainObject).find((candidate) => candidate['name'] === parts.server);
  if (server === undefined) return { error: `tool '${name}': settings.mcp.servers has no '${parts.server}'` };
  if (!Array.isArray(server['tools']) || !server['tools'].includes(parts.tool)) {
    return { error: `tool '${name}' is not on the allow-list of server '${parts.server}'` };
  }
  return parts;
}
