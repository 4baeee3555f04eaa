/**
 * tea-edge/host/probe: what a model server can do (models, chat, tool calls, embeddings), for a
 * host's "test connection", and whether an agent's MCP servers offer the tools it allows
 * (`validate --online`). A module of its own: a page loads it only when asked, and a worker
 * build that leaves the MCP client out never sees it.
 */
export { probeEndpoint } from './llm/probe.js';
export type { ProbeOptions, ProbeReport } from './llm/probe.js';
export { probeMcpServers } from './mcp/mcp-probe.js';
