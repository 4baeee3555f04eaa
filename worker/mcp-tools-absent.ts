/**
 * What a worker bundle has in place of src/mcp/mcp-tools.ts when none of its agents declares
 * `settings.mcp` (build/targets/30-worker.mjs, OPTIONAL_MODULES): the MCP client is left out
 * (about 7 KB gzip), and an MCP tool of an agent a host adds later is refused when its node
 * starts, with a typed error instead of a missing module.
 */
import { AgentError } from '../src/core/agent-error.js';

function absent(server: string): AgentError {
  return new AgentError(
    'FORBIDDEN',
    `this worker was built without the MCP client (none of its bundled agents declares settings.mcp), so MCP server '${server}' cannot be used`,
    {
      details: { mcp_server: server, feature: 'mcp' },
    },
  );
}

export async function listMcpTools(serverName: string): Promise<never> {
  throw absent(serverName);
}

export async function callMcpTool(serverName: string): Promise<never> {
  throw absent(serverName);
}
