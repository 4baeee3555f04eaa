/**
 * Fills in a ReAct tool table's MCP tools (`mcp.<server>.<tool>`, docs/mcp.md) when the node
 * starts: each server is listed once per run (src/mcp/mcp-tools.ts), and each tool takes the
 * server's description, parameters and compiled schema. The load-time table is shared by every run
 * and left unchanged. reason-react.ts and tool-dispatch.ts import this module dynamically, only
 * for tables with MCP tools, so it and the MCP client form a lazy chunk.
 */
import type { ActionContext } from '../../core/action.js';
import { callMcpTool, listMcpTools } from '../../mcp/mcp-tools.js';
import type { ReactTool, ToolTable } from './tool-table.js';

/** The table with its MCP tools described by their servers; the same table when it has none. */
export async function withMcpTools(table: ToolTable, context: ActionContext): Promise<ToolTable> {
  if (!table.tools.some((tool) => tool.mcp !== undefined)) return table;
  const wanted = new Map<string, string[]>();
  for (const tool of table.tools)
    if (tool.mcp !== undefined) wanted.set(tool.mcp.server, [...(wanted.get(tool.mcp.server) ?? []), tool.mcp.tool]);
  const listings = new Map(
    await Promise.all(
      [...wanted].map(async ([server, tools]) => [server, await listMcpTools(server, tools, context)] as const),
    ),
  );
  const tools = table.tools.map((tool): ReactTool => {
    if (tool.mcp === undefined) return tool;
    const listed = listings.get(tool.mcp.server)!.get(tool.mcp.tool)!;
    // The agent author's description wins over the server's (the author's is trusted text).
    return {
      ...tool,
      description: tool.description || listed.description || `MCP tool ${tool.mcp.tool}`,
      serverDescription: listed.description,
      parameters: listed.parameters,
      schema: listed.schema,
    };
  });
  return {
    tools,
    byName: new Map(tools.map((tool) => [tool.name, tool])),
    byWireName: new Map(tools.map((tool) => [tool.wireName, tool])),
  };
}

/** Runs an MCP tool of the table (the server was listed by withMcpTools in this run). */
export async function callMcpTableTool(
  tool: ReactTool & { mcp: { server: string; tool: string } },
  args: Record<string, unknown>,
  context: ActionContext,
): Promise<string> {
  return callMcpTool(tool.mcp.server, tool.mcp.tool, args, context);
}
