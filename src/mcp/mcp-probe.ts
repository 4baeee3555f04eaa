/**
 * `validate --online` for MCP (docs/mcp.md): connects to every server of `settings.mcp`, lists its
 * tools under the same policy and caps as a run, and reports each allow-listed tool the server
 * does not offer (or why the server could not be listed). Outside a run: no model, no state.
 */
import type { AgentSettings } from '../core/agent-settings.js';
import { messageOf } from '../util/message-of.js';
import { closeMcpSessions, listMcpTools, type McpContext } from './mcp-tools.js';
import { readMcpServers } from './mcp-settings.js';

export interface McpProbeProblem {
  server: string;
  message: string;
}

/** Problems found on the agent's MCP servers; empty when every allow-listed tool is offered. */
export async function probeMcpServers(
  settings: Readonly<AgentSettings>,
  options: { secrets?: Record<string, string>; signal?: AbortSignal } = {},
): Promise<McpProbeProblem[]> {
  const servers = readMcpServers(settings);
  if ('error' in servers) return [{ server: '', message: `${servers.field}: ${servers.error}` }];
  const context: McpContext = {
    memory: new Map(),
    settings,
    signal: options.signal ?? new AbortController().signal,
    scope: () => ({ secrets: options.secrets ?? {} }) as unknown as ReturnType<McpContext['scope']>,
    // Not a run: the probe closes its sessions itself, below.
    onRunEnd: () => undefined,
  };
  const problems: McpProbeProblem[] = [];
  try {
    for (const server of servers) {
      try {
        await listMcpTools(server.name, server.tools, context);
      } catch (error) {
        problems.push({ server: server.name, message: messageOf(error) });
      }
    }
  } finally {
    await closeMcpSessions(context);
  }
  return problems;
}
