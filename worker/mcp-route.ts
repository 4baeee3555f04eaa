/**
 * `POST /mcp`: the app's agents as MCP tools over the Streamable HTTP transport (docs/mcp.md
 * "Serve agents over MCP"), written on the app's own JSON-RPC handling because the official SDK's
 * server bundles ajv and zod (code generation; docs/mcp.md). Stateless: no `Mcp-Session-Id`, every
 * request stands alone, and GET/DELETE are 405 (the server opens no stream of its own).
 *
 *   tools/list  one tool per agent: name, description, `input_schema` as the input schema
 *   tools/call  runs the agent with the arguments as input; the result's structuredContent is
 *               {run_id, status, stop_reason, state} (the final state), its text the same JSON.
 *               With a progressToken and `Accept: text/event-stream`, the answer is an SSE stream
 *               carrying a notifications/progress per finished node, then the result.
 *               A run that pauses (interrupt, tool confirmation) answers a resumable handle:
 *               status "interrupted", the interrupt, and `resume: "POST /runs/<id>/resume"`.
 *
 * The app's guards run first (Host, Origin, bearer tokens → role, body limit), so /mcp answers to
 * exactly the callers and roles the HTTP API does; each run gets the request's run options.
 */
import type { Context, Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { AgentEvent } from '../src/events/event.js';
import type { RunOptions, RunResult } from '../src/graph/run-types.js';
import { runAgent } from '../src/graph/run-agent.js';
import type { Sanitizer } from '../src/events/outbound.js';
import { isPlainObject } from '../src/util/plain-object.js';
import { VERSION } from '../src/version.js';
import type { AgentSource } from './agent-source.js';
import type { AppEnv } from './app.js';
import { errorResponse } from './error-status.js';
import { resultBody } from './respond-with-run.js';

/** Protocol revisions this server answers; the newest is offered when the client's is unknown. */
const VERSIONS = ['2025-06-18', '2025-03-26', '2024-11-05'];

/** JSON-RPC error codes (JSON-RPC 2.0 §5.1). */
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const METHOD_NOT_FOUND = -32601;
const INVALID_PARAMS = -32602;

export interface McpRouteContext {
  agents: AgentSource;
  runOptions: (c: Context<AppEnv>) => RunOptions;
  sanitizer: Sanitizer;
}

type RpcId = string | number;
type RpcMessage = { jsonrpc: '2.0'; id: RpcId; result: unknown } | { jsonrpc: '2.0'; id: RpcId | null; error: { code: number; message: string } };

/** Mounts `/mcp` on the app (one call in app.ts). */
export function mountMcpRoute(app: Hono<AppEnv>, context: McpRouteContext): void {
  app.post('/mcp', (c) => answer(c, context));
  app.all('/mcp', (c) => {
    const response = errorResponse('METHOD_NOT_ALLOWED', `/mcp answers POST only (a stateless Streamable HTTP server), not ${c.req.method}`);
    response.headers.set('allow', 'POST');
    return response;
  });
}

async function answer(c: Context<AppEnv>, context: McpRouteContext): Promise<Response> {
  let message: unknown;
  try {
    message = JSON.parse(await c.req.text());
  } catch {
    return c.json(rpcError(null, PARSE_ERROR, 'the body is not JSON'), 400);
  }
  if (!isPlainObject(message) || message['jsonrpc'] !== '2.0' || typeof message['method'] !== 'string') {
    return c.json(rpcError(null, INVALID_REQUEST, 'expected one JSON-RPC 2.0 request or notification (batches are not supported)'), 400);
  }
  const id = message['id'];
  // Notifications (initialized, cancelled, …) need no answer.
  if (id === undefined) return c.body(null, 202);
  if (typeof id !== 'string' && typeof id !== 'number') return c.json(rpcError(null, INVALID_REQUEST, 'id must be a string or a number'), 400);
  const params = isPlainObject(message['params']) ? message['params'] : {};
  switch (message['method']) {
    case 'initialize':
      return c.json(rpcResult(id, initializeResult(params)));
    case 'ping':
      return c.json(rpcResult(id, {}));
    case 'tools/list':
      return c.json(rpcResult(id, { tools: await listTools(context.agents) }));
    case 'tools/call':
      return callTool(c, context, id, params);
    default:
      return c.json(rpcError(id, METHOD_NOT_FOUND, `method '${String(message['method']).slice(0, 100)}' is not supported`));
  }
}

function initializeResult(params: Record<string, unknown>): Record<string, unknown> {
  const asked = params['protocolVersion'];
  return {
    protocolVersion: typeof asked === 'string' && VERSIONS.includes(asked) ? asked : VERSIONS[0],
    capabilities: { tools: { listChanged: false } },
    serverInfo: { name: 'tea-edge', version: VERSION },
    instructions: 'Each tool runs one tea-edge agent: its arguments are the run input, its result the final state.',
  };
}

async function listTools(agents: AgentSource): Promise<Array<Record<string, unknown>>> {
  const summaries = await agents.list();
  const tools = await Promise.all(
    summaries.map(async ({ name, description }) => {
      const agent = await agents.get(name);
      const schema = agent?.spec.inputSchema;
      return {
        name,
        description: description || `Runs the tea-edge agent '${name}'`,
        // MCP wants an object schema; a run's input is always a JSON object.
        inputSchema: isPlainObject(schema) ? { ...schema, type: 'object' } : { type: 'object' },
      };
    }),
  );
  return tools;
}

async function callTool(c: Context<AppEnv>, context: McpRouteContext, id: RpcId, params: Record<string, unknown>): Promise<Response> {
  const name = params['name'];
  const agent = typeof name === 'string' ? await context.agents.get(name) : undefined;
  if (agent === undefined) return c.json(rpcError(id, INVALID_PARAMS, `no tool (agent) named ${JSON.stringify(name).slice(0, 100)}`));
  const input = params['arguments'] ?? {};
  if (!isPlainObject(input)) return c.json(rpcError(id, INVALID_PARAMS, 'arguments must be a JSON object'));
  const meta = isPlainObject(params['_meta']) ? params['_meta'] : {};
  const token = meta['progressToken'];
  const run = runAgent(agent, input as Record<string, unknown>, context.runOptions(c));
  const wantsStream = (c.req.header('accept') ?? '').includes('text/event-stream');
  if ((typeof token !== 'string' && typeof token !== 'number') || !wantsStream) {
    for await (const event of run) void event; // drained, so the engine's channel never holds them
    return c.json(JSON.parse(context.sanitizer.text(JSON.stringify(rpcResult(id, toolResult(await run.result))))));
  }
  return streamSSE(c, async (stream) => {
    stream.onAbort(() => run.cancel('the MCP client disconnected'));
    const send = (message: unknown) => stream.writeSSE({ event: 'message', data: context.sanitizer.text(JSON.stringify(message)) });
    let progress = 0;
    for await (const event of run) {
      const note = progressNote(event);
      if (note !== undefined && !stream.aborted) {
        await send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: ++progress, message: note } });
      }
    }
    if (!stream.aborted) await send(rpcResult(id, toolResult(await run.result)));
  });
}

/** A progress message for the events worth one: each node that ends, and a pause. */
function progressNote(event: AgentEvent): string | undefined {
  if (event.type === 'node_end') return `node '${event.node ?? ''}' done`;
  if (event.type === 'interrupt') return 'the run paused';
  return undefined;
}

/** A run's outcome as an MCP tool result; a paused run is a resumable handle. */
export function toolResult(result: RunResult): Record<string, unknown> {
  const body = resultBody(result);
  if (result.status === 'interrupted') body['resume'] = `POST /runs/${result.run_id}/resume`;
  const summary =
    result.status === 'interrupted'
      ? `The run ${result.run_id} is waiting for a human (${result.interrupt?.kind ?? 'interrupt'}); resume it with POST /runs/${result.run_id}/resume.\n`
      : '';
  return { content: [{ type: 'text', text: summary + JSON.stringify(body) }], structuredContent: body, isError: result.status === 'failed' || result.status === 'cancelled' };
}

function rpcResult(id: RpcId, result: unknown): RpcMessage {
  return { jsonrpc: '2.0', id, result };
}

function rpcError(id: RpcId | null, code: number, message: string): RpcMessage {
  return { jsonrpc: '2.0', id, error: { code, message } };
}
