/**
 * A real MCP server for the tests, built with the official SDK (`Server` +
 * `StreamableHTTPServerTransport`, stateless: one server per request, or with `sessions`, one per
 * session id the server hands out) on 127.0.0.1. Its tools are
 * given as raw MCP tool objects, so tests can hand out hostile listings (giant descriptions,
 * ReDoS patterns, lists that change between calls) and hostile results (huge, slow). It counts
 * the requests it answered by method.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';

export interface TestToolContext {
  /** Sends a progress notification (when the caller asked for progress) or a log message. */
  notify(text: string): Promise<void>;
  signal: AbortSignal;
}

export interface McpTestServerOptions {
  /** The listing; a function is asked on every tools/list (its argument counts earlier listings). */
  tools: Tool[] | ((listings: number) => Tool[]);
  /** Answers tools/call. */
  call(name: string, args: Record<string, unknown>, context: TestToolContext): Promise<CallToolResult> | CallToolResult;
  /** Answer with one JSON body instead of an SSE stream (both are Streamable HTTP). */
  json?: boolean;
  /** A header that every request must carry, e.g. ['authorization', 'Bearer t']; else 401. */
  requireHeader?: [string, string];
  /** Answer CORS (any origin), for callers in a browser page. */
  cors?: boolean;
  /** Stateful: hand out an `Mcp-Session-Id` on initialize and keep the session until a DELETE. */
  sessions?: boolean;
}

export interface McpTestServer {
  url: string;
  origin: string;
  counts: Record<string, number>;
  /** Headers of every request received. */
  headers: Array<Record<string, string | string[] | undefined>>;
  /** Sessions open now (with `sessions`). */
  openSessions(): number;
  close(): Promise<void>;
}

export async function startMcpTestServer(options: McpTestServerOptions): Promise<McpTestServer> {
  const counts: Record<string, number> = {};
  const headers: McpTestServer['headers'] = [];
  let listings = 0;
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    if (options.cors === true) {
      response.setHeader('access-control-allow-origin', '*');
      response.setHeader('access-control-expose-headers', 'mcp-session-id');
      if (request.method === 'OPTIONS') {
        response
          .writeHead(204, { 'access-control-allow-headers': '*', 'access-control-allow-methods': 'POST, GET, DELETE' })
          .end();
        return;
      }
    }
    headers.push({ ...request.headers });
    if (request.method === 'DELETE') counts['DELETE'] = (counts['DELETE'] ?? 0) + 1;
    const sessionId = request.headers['mcp-session-id'];
    const open = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (options.sessions === true && open !== undefined) {
      await open.handleRequest(request, response);
      return;
    }
    if (options.requireHeader !== undefined && request.headers[options.requireHeader[0]] !== options.requireHeader[1]) {
      response.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
      return;
    }
    const server = new Server(
      { name: 'tea-edge-test-server', version: '1.0.0' },
      { capabilities: { tools: { listChanged: true }, logging: {} } },
    );
    server.setRequestHandler(ListToolsRequestSchema, async () => {
      counts['tools/list'] = (counts['tools/list'] ?? 0) + 1;
      const tools = typeof options.tools === 'function' ? options.tools(listings++) : options.tools;
      return { tools };
    });
    server.setRequestHandler(CallToolRequestSchema, async (call, extra) => {
      counts['tools/call'] = (counts['tools/call'] ?? 0) + 1;
      const token = call.params._meta?.progressToken;
      let progress = 0;
      const notify = async (text: string): Promise<void> => {
        if (token !== undefined)
          await extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken: token, progress: ++progress, message: text },
          });
        else await extra.sendNotification({ method: 'notifications/message', params: { level: 'info', data: text } });
      };
      return options.call(call.params.name, (call.params.arguments ?? {}) as Record<string, unknown>, {
        notify,
        signal: extra.signal,
      });
    });
    if (options.sessions === true) {
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => crypto.randomUUID(),
        enableJsonResponse: options.json === true,
        onsessioninitialized: (id) => void sessions.set(id, transport),
      });
      transport.onclose = () => {
        if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
      };
      await server.connect(transport);
      await transport.handleRequest(request, response);
      return;
    }
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: options.json === true,
    });
    response.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request, response);
  };
  const http = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500).end(String(error));
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    url: `${origin}/mcp`,
    origin,
    counts,
    headers,
    openSessions: () => sessions.size,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

/** A plain tool listing entry. */
export function tool(
  name: string,
  description: string,
  inputSchema: Record<string, unknown> = { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
): Tool {
  return { name, description, inputSchema: inputSchema as Tool['inputSchema'] };
}
