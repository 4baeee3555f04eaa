/**
 * MCP tools at run time: a server is connected and its tools listed the first time a run needs
 * it, once per run; that listing is frozen for the rest of the run (a server that changes its
 * tool list mid-run changes nothing: no new tools, no new descriptions or schemas). Loaded, with
 * src/reasoning/react/mcp-tool-table.ts, through a dynamic import only by agents that name `mcp.*`
 * tools (a lazy chunk in split bundles).
 *
 * Server input is untrusted (docs/mcp.md "Untrusted input"): descriptions are cut to
 * MCP_LIMITS.maxDescriptionChars, schemas above maxSchemaBytes or that fail the untrusted-schema
 * checks (compileSchema: caps, linear-time patterns, $ref checks) make the tool unusable, every
 * response body is read under a byte cap with a timeout, and results are cut before they become
 * observations. The network follows `http.get`'s policy: the server's exact origin must be in
 * `settings.http.allow` (which is also what lets a loopback or private address through).
 */
import type { ActionContext, CompiledSchema, JsonSchema } from '../core/action.js';
import { AgentError } from '../core/agent-error.js';
import { compileSchema } from '../schema/compile-schema.js';
import { readHttpSettings } from '../tools/http-get.js';
import { checkUrl } from '../tools/url-policy.js';
import { isPlainObject } from '../util/plain-object.js';
import { connectMcp, mcpError, type McpSession } from './mcp-client.js';
import { readMcpServers, type McpServerSettings } from './mcp-settings.js';
import { cutText } from '../util/cut-text.js';

/** Caps on what an MCP server can hand the run. */
export const MCP_LIMITS = {
  maxDescriptionChars: 1024,
  maxSchemaBytes: 16 * 1024,
  /** Most tools read from one server's listing (pages included). */
  maxListedTools: 512,
  maxListPages: 8,
  /** Most bytes of a tools/list answer. */
  maxListBytes: 1024 * 1024,
  /** Most characters of a result handed back as the observation source. */
  maxResultChars: 64 * 1024,
} as const;

/** A tool as the server described it, after the caps and checks. */
export interface ListedMcpTool {
  name: string;
  description: string;
  parameters: JsonSchema;
  schema: CompiledSchema;
}

interface ServerHandle {
  session: McpSession;
  tools: Map<string, ListedMcpTool>;
}

/** What the MCP tools need of an action context (a probe outside a run passes just these). */
export type McpContext = Pick<ActionContext, 'memory' | 'settings' | 'signal' | 'scope' | 'onRunEnd'>;

/** Connections of each run, keyed by the run's memory Map (one object per run). */
const runs = new WeakMap<object, Map<string, Promise<ServerHandle>>>();

/**
 * The allow-listed tools of `serverName` for this run, listing the server on first use. Throws
 * ACTION_FAILED when the server is unreachable, breaks the protocol or its caps, or lacks a tool
 * the agent allows and names in `wanted`.
 */
export async function listMcpTools(
  serverName: string,
  wanted: readonly string[],
  context: McpContext,
): Promise<Map<string, ListedMcpTool>> {
  const handle = await serverFor(serverName, context);
  const missing = wanted.filter((tool) => !handle.tools.has(tool));
  if (missing.length > 0) {
    throw new AgentError(
      'ACTION_FAILED',
      `MCP server '${serverName}' does not offer ${missing.map((tool) => `'${tool}'`).join(', ')}`,
      { details: { mcp_server: serverName, missing } },
    );
  }
  return handle.tools;
}

/**
 * Calls an allow-listed tool of a server listed earlier in this run. The result's text content
 * (or its structured content as JSON) is returned, cut to maxResultChars; a result marked
 * `isError` is an ACTION_FAILED with the server's text.
 */
export async function callMcpTool(
  serverName: string,
  tool: string,
  args: Record<string, unknown>,
  context: McpContext,
): Promise<string> {
  const handle = await serverFor(serverName, context);
  if (!handle.tools.has(tool))
    throw new AgentError(
      'ACTION_FAILED',
      `MCP tool '${tool}' was not in server '${serverName}''s listing for this run`,
      { details: { mcp_server: serverName } },
    );
  const result = await handle.session.request('tools/call', { name: tool, arguments: args });
  const text = resultText(result);
  if (result['isError'] === true)
    throw new AgentError('ACTION_FAILED', `MCP tool '${tool}' reported an error: ${cutText(text, 2000)}`, {
      details: { mcp_server: serverName },
    });
  return text;
}

/** Ends the run's MCP sessions (at the run's end, through ActionContext.onRunEnd; a probe calls it itself). */
export async function closeMcpSessions(context: Pick<ActionContext, 'memory'>): Promise<void> {
  const servers = runs.get(context.memory);
  if (servers === undefined) return;
  runs.delete(context.memory);
  await Promise.all(
    [...servers.values()].map((pending) =>
      pending.then(
        (handle) => handle.session.close(),
        () => undefined,
      ),
    ),
  );
}

function serverFor(serverName: string, context: McpContext): Promise<ServerHandle> {
  let servers = runs.get(context.memory);
  if (servers === undefined) {
    servers = new Map();
    runs.set(context.memory, servers);
    // The run's sessions end with it (a DELETE per session that has an id), not by idling out.
    context.onRunEnd(() => closeMcpSessions(context));
  }
  let pending = servers.get(serverName);
  if (pending === undefined) {
    pending = openServer(serverName, context);
    // A failed listing is not kept: a later node may try again (a retry is not a widening).
    pending.catch(() => servers.delete(serverName));
    servers.set(serverName, pending);
  }
  return pending;
}

async function openServer(serverName: string, context: McpContext): Promise<ServerHandle> {
  const servers = readMcpServers(context.settings);
  if ('error' in servers) throw new AgentError('INVALID_PARAMS', servers.error, { field: servers.field });
  const server = servers.find((candidate) => candidate.name === serverName);
  if (server === undefined)
    throw new AgentError('UNKNOWN_TOOL', `settings.mcp.servers declares no server '${serverName}'`);
  const http = readHttpSettings(context.settings);
  const decision = checkUrl(server.url, http.allow);
  if (!decision.allowed)
    throw new AgentError('FORBIDDEN', `MCP server '${serverName}': ${decision.reason}`, {
      field: 'settings.http.allow',
      details: { mcp_server: serverName },
    });
  const session = await connectMcp({
    url: decision.url,
    headers: headersOf(server, context),
    maxBytes: Math.max(http.maxBytes, MCP_LIMITS.maxListBytes),
    timeoutMs: http.timeoutMs,
    signal: context.signal,
  });
  try {
    const tools = await readListing(session, server, decision.url);
    // Later requests (tools/call) get the agent's own byte cap: a result is data like an http.get body.
    return { session: capped(session, http.maxBytes), tools };
  } catch (error) {
    await session.close();
    throw error;
  }
}

/** The same session, but tools/call bodies are held to `maxBytes` (settings.http.max_bytes). */
function capped(session: McpSession, maxBytes: number): McpSession {
  return {
    ...session,
    request: (method, params) => session.request(method, params).then((result) => checkResultSize(result, maxBytes)),
  };
}

function checkResultSize(result: Record<string, unknown>, maxBytes: number): Record<string, unknown> {
  const size = JSON.stringify(result).length;
  if (size > maxBytes)
    throw new AgentError('ACTION_FAILED', `the MCP result is larger than settings.http.max_bytes (${maxBytes})`, {
      details: { limit: 'max_bytes' },
    });
  return result;
}

function headersOf(server: McpServerSettings, context: McpContext): Record<string, string> {
  const secrets = (context.scope()['secrets'] ?? {}) as Record<string, unknown>;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(server.headers)) {
    if ('text' in value) {
      headers[name] = value.text;
      continue;
    }
    const secret = secrets[value.secret];
    if (typeof secret !== 'string' || secret === '') {
      throw new AgentError(
        'ACTION_FAILED',
        `MCP server '${server.name}': the host gave no secret '${value.secret}' (header ${name})`,
        { field: `settings.mcp.servers.${server.name}.headers` },
      );
    }
    headers[name] = value.prefix + secret;
  }
  return headers;
}

/** Pages through tools/list, keeping only allow-listed tools, each checked and capped. */
async function readListing(
  session: McpSession,
  server: McpServerSettings,
  url: URL,
): Promise<Map<string, ListedMcpTool>> {
  const allowed = new Set(server.tools);
  const tools = new Map<string, ListedMcpTool>();
  let cursor: string | undefined;
  let seen = 0;
  for (let page = 0; page < MCP_LIMITS.maxListPages; page++) {
    const result = await session.request('tools/list', cursor === undefined ? {} : { cursor });
    const listed = Array.isArray(result['tools']) ? result['tools'] : [];
    seen += listed.length;
    if (seen > MCP_LIMITS.maxListedTools)
      throw mcpError(url, `the server lists more than ${MCP_LIMITS.maxListedTools} tools`);
    for (const entry of listed) {
      if (
        !isPlainObject(entry) ||
        typeof entry['name'] !== 'string' ||
        !allowed.has(entry['name']) ||
        tools.has(entry['name'])
      )
        continue;
      tools.set(entry['name'], checkTool(entry, server.name, url));
    }
    cursor = typeof result['nextCursor'] === 'string' && result['nextCursor'] !== '' ? result['nextCursor'] : undefined;
    if (cursor === undefined) return tools;
  }
  throw mcpError(url, `the tool list has more than ${MCP_LIMITS.maxListPages} pages`);
}

function checkTool(entry: Record<string, unknown>, serverName: string, url: URL): ListedMcpTool {
  const name = entry['name'] as string;
  const rawDescription = typeof entry['description'] === 'string' ? entry['description'] : '';
  const description = cutText(rawDescription, MCP_LIMITS.maxDescriptionChars);
  const inputSchema = entry['inputSchema'] ?? { type: 'object' };
  const size = JSON.stringify(inputSchema)?.length ?? 0;
  if (size > MCP_LIMITS.maxSchemaBytes)
    throw mcpError(
      url,
      `tool '${name}': its input schema has ${size} characters (limit ${MCP_LIMITS.maxSchemaBytes})`,
      { limit: 'schema' },
    );
  if (!isPlainObject(inputSchema) || inputSchema['type'] !== 'object')
    throw mcpError(url, `tool '${name}': its input schema is not an object schema`);
  let schema: CompiledSchema;
  try {
    schema = compileSchema(inputSchema, {
      where: { field: `mcp.${serverName}.${name}.inputSchema` },
      limits: { maxSchemaBytes: MCP_LIMITS.maxSchemaBytes },
    });
  } catch (error) {
    throw mcpError(
      url,
      `tool '${name}': its input schema is refused: ${AgentError.isInstance(error) ? error.message : String(error)}`,
      { limit: 'schema' },
    );
  }
  return { name, description, parameters: inputSchema as JsonSchema, schema };
}

/** The text of a tools/call result: its text parts, else its structured content as JSON. */
function resultText(result: Record<string, unknown>): string {
  const content = Array.isArray(result['content']) ? result['content'] : [];
  const texts = content
    .filter((part): part is Record<string, unknown> => isPlainObject(part))
    .map((part) =>
      part['type'] === 'text' && typeof part['text'] === 'string'
        ? part['text']
        : `[${cutText(String(part['type']), 20)} content omitted]`,
    );
  const text =
    texts.length > 0
      ? texts.join('\n')
      : result['structuredContent'] !== undefined
        ? JSON.stringify(result['structuredContent'])
        : '';
  return cutText(text, MCP_LIMITS.maxResultChars);
}
