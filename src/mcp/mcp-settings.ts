/**
 * `settings.mcp` (docs/mcp.md): the MCP servers an agent may take tools from.
 *
 *   settings:
 *     http: { allow: ["https://tools.example.com"] }   # the server's origin, as for http.get
 *     mcp:
 *       servers:
 *         - name: docs
 *           url: https://tools.example.com/mcp
 *           headers: { authorization: { secret: docs_token, prefix: "Bearer " } }
 *           tools: [search, fetch_page]                 # the allow-list
 *
 * Tools are then named `mcp.<server>.<tool>` in `reason.react` `tools:`. Only the listed tools can
 * ever be called, whatever the server offers. Header values are plain strings or `{secret, prefix}`
 * naming one of the host's secrets (never written in the agent file).
 */
import { isPlainObject } from '../util/plain-object.js';
import { quoteText } from '../util/cut-text.js';

const SERVER_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,31}$/;
const TOOL_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/;
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$/;
const MAX_SERVERS = 16;
const MAX_TOOLS_PER_SERVER = 64;

export type HeaderValue = { text: string } | { secret: string; prefix: string };

export interface McpServerSettings {
  name: string;
  url: string;
  headers: Record<string, HeaderValue>;
  /** The allow-list: tool names as the server spells them. */
  tools: string[];
}

/** The servers of `settings.mcp`, or a message saying what is wrong (with the field path). */
export function readMcpServers(
  settings: Readonly<Record<string, unknown>>,
): McpServerSettings[] | { error: string; field: string } {
  const mcp = settings['mcp'];
  if (mcp === undefined) return [];
  if (!isPlainObject(mcp) || !Array.isArray(mcp['servers']))
    return { error: 'settings.mcp must be {servers: [...]}', field: 'settings.mcp' };
  const list = mcp['servers'];
  if (list.length > MAX_SERVERS)
    return { error: `settings.mcp.servers lists more than ${MAX_SERVERS} servers`, field: 'settings.mcp.servers' };
  const servers: McpServerSettings[] = [];
  for (const [index, entry] of list.entries()) {
    const field = `settings.mcp.servers[${index}]`;
    const server = readServer(entry, field);
    if ('error' in server) return server;
    if (servers.some((other) => other.name === server.name))
      return { error: `server '${server.name}' is listed twice`, field: `${field}.name` };
    servers.push(server);
  }
  return servers;
}

function readServer(entry: unknown, field: string): McpServerSettings | { error: string; field: string } {
  if (!isPlainObject(entry)) return { error: 'a server is {name, url, tools, headers?}', field };
  for (const key of Object.keys(entry))
    if (!['name', 'url', 'tools', 'headers'].includes(key))
      return { error: `unknown key '${key}' in an MCP server`, field };
  const { name, url, tools, headers } = entry;
  if (typeof name !== 'string' || !SERVER_NAME.test(name))
    return { error: `name must match ${SERVER_NAME}`, field: `${field}.name` };
  if (typeof url !== 'string' || !/^https?:\/\//i.test(url) || !URL.canParse(url))
    return { error: 'url must be an absolute http(s) URL', field: `${field}.url` };
  if (!Array.isArray(tools) || tools.length === 0 || tools.length > MAX_TOOLS_PER_SERVER) {
    return {
      error: `tools must list 1 to ${MAX_TOOLS_PER_SERVER} tool names (the allow-list)`,
      field: `${field}.tools`,
    };
  }
  const badTool = tools.find((tool) => typeof tool !== 'string' || !TOOL_NAME.test(tool) || tool.includes('..'));
  if (badTool !== undefined)
    return { error: `tool name ${JSON.stringify(badTool)} must match ${TOOL_NAME}`, field: `${field}.tools` };
  const readHeaders = readHeaderValues(headers, `${field}.headers`);
  if ('error' in readHeaders) return readHeaders;
  return { name, url, tools: tools as string[], headers: readHeaders.headers };
}

function readHeaderValues(
  headers: unknown,
  field: string,
): { headers: Record<string, HeaderValue> } | { error: string; field: string } {
  const result: Record<string, HeaderValue> = {};
  if (headers === undefined) return { headers: result };
  if (!isPlainObject(headers))
    return { error: 'headers must map header names to a string or {secret, prefix?}', field };
  for (const [name, value] of Object.entries(headers)) {
    if (!HEADER_NAME.test(name)) return { error: `${quoteText(name, 64)} is not a header name`, field };
    const lower = name.toLowerCase();
    if (['host', 'content-type', 'content-length', 'accept', 'mcp-session-id', 'mcp-protocol-version'].includes(lower))
      return { error: `header '${name}' is set by tea-edge`, field: `${field}.${name}` };
    if (typeof value === 'string') result[lower] = { text: value };
    else if (
      isPlainObject(value) &&
      typeof value['secret'] === 'string' &&
      (value['prefix'] === undefined || typeof value['prefix'] === 'string')
    ) {
      result[lower] = { secret: value['secret'], prefix: (value['prefix'] as string | undefined) ?? '' };
    } else return { error: 'a header value is a string or {secret, prefix?}', field: `${field}.${name}` };
  }
  return { headers: result };
}
