/**
 * `POST /mcp`: the app's agents as MCP tools over the Streamable HTTP transport (docs/mcp.md
 * "Serve agents over MCP"), written on the app's own JSON-RPC handling because the official SDK's
 * server bundles ajv and zod (code generation; docs/mcp.md). Stateless: no `Mcp-Session-Id`, every
 * request stands alone, and GET/DELETE are 405 (the server opens no stream of its own).
 *
 *   tools/list  one tool per agent: name, description, `input_schema` as the input schema
 *   tools/call  runs the agent with the arguments as input, through the app's own
 *               `POST /agents/:name/runs` (in the request, in the process or in a Durable Object,
 *               as the host runs runs; resumable the same way); the result's structuredContent is
 *               {run_id, status, stop_reason, state} (the final state), its text the same JSON.
 *               With a progressToken and `Accept: text/event-stream`, the answer is an SSE stream
 *               carrying a notifications/progress per finished node, then the result.
 *               A run that pauses (interrupt, tool confirmation) answers a resumable handle:
 *               status "interrupted", the interrupt, and `resume: "POST /runs/<id>/resume"`.
 *
 * The app's guards run first (Host, Origin, bearer tokens → role, body limit), so /mcp answers to
 * exactly the callers and roles the HTTP API does; the inner runs request carries the caller's
 * Authorization, so the run gets the same role.
 */
import type { Context, ExecutionContext, Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { AgentEvent } from '../src/core/events.js';
import { createSseParser } from '../src/llm/sse-parser.js';
import type { Sanitizer } from '../src/events/outbound.js';
import { isPlainObject } from '../src/util/plain-object.js';
import { VERSION } from '../src/version.js';
import type { AgentSource } from './agent-source.js';
import type { AppEnv } from './app.js';
import { errorResponse } from './error-status.js';
import { readJsonValue } from './read-json-body.js';
import { toAgentError } from '../src/core/agent-error.js';
import { cutText, quoteText } from '../src/util/cut-text.js';

/** Protocol revisions this server answers; the newest is offered when the client's is unknown. */
const VERSIONS = ['2025-06-18', '2025-03-26', '2024-11-05'];

/** JSON-RPC error codes (JSON-RPC 2.0 §5.1). */
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const METHOD_NOT_FOUND = -32601;
const INVALID_PARAMS = -32602;

export interface McpRouteContext {
  agents: AgentSource;
  sanitizer: Sanitizer;
}

type RpcId = string | number;
type RpcMessage =
  | { jsonrpc: '2.0'; id: RpcId; result: unknown }
  | { jsonrpc: '2.0'; id: RpcId | null; error: { code: number; message: string } };

/** Mounts `/mcp` on the app (one call in app.ts). */
export function mountMcpRoute(app: Hono<AppEnv>, context: McpRouteContext): void {
  app.post('/mcp', (c) => answer(c, app, context));
  app.all('/mcp', (c) => {
    const response = errorResponse(
      'METHOD_NOT_ALLOWED',
      `/mcp answers POST only (a stateless Streamable HTTP server), not ${c.req.method}`,
    );
    response.headers.set('allow', 'POST');
    return response;
  });
}

async function answer(c: Context<AppEnv>, app: Hono<AppEnv>, context: McpRouteContext): Promise<Response> {
  let message: unknown;
  try {
    // The app's one body reader: JSON content type, and the depth cap before anything walks it.
    message = await readJsonValue(c.req.raw);
  } catch (error) {
    const typed = toAgentError(error, 'INVALID_PARAMS');
    if (typed.code === 'UNSUPPORTED_MEDIA_TYPE') throw typed;
    const reason = typed.details?.['reason'];
    return c.json(rpcError(null, PARSE_ERROR, reason === 'depth' ? typed.message : 'the body is not JSON'), 400);
  }
  if (!isPlainObject(message) || message['jsonrpc'] !== '2.0' || typeof message['method'] !== 'string') {
    return c.json(
      rpcError(null, INVALID_REQUEST, 'expected one JSON-RPC 2.0 request or notification (batches are not supported)'),
      400,
    );
  }
  const id = message['id'];
  // Notifications (initialized, cancelled, …) need no answer.
  if (id === undefined) return c.body(null, 202);
  if (typeof id !== 'string' && typeof id !== 'number')
    return c.json(rpcError(null, INVALID_REQUEST, 'id must be a string or a number'), 400);
  const params = isPlainObject(message['params']) ? message['params'] : {};
  switch (message['method']) {
    case 'initialize':
      return c.json(rpcResult(id, initializeResult(params)));
    case 'ping':
      return c.json(rpcResult(id, {}));
    case 'tools/list':
      return c.json(rpcResult(id, { tools: await listTools(context.agents) }));
    case 'tools/call':
      return callTool(c, app, context, id, params);
    default:
      return c.json(
        rpcError(id, METHOD_NOT_FOUND, `method ${quoteText(String(message['method']), 100)} is not supported`),
      );
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
  // An agent whose file does not load is no tool (GET /agents lists it with its problems).
  const summaries = (await agents.list()).filter((summary) => summary.status !== 'invalid');
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

/**
 * Runs the agent through the app's own `POST /agents/:name/runs` (so a run started over MCP runs
 * wherever the host runs runs: in the request, in the process, in a Durable Object, and can be
 * resumed the same way), with the caller's Authorization and Host; with a progress token, as SSE.
 */
async function callTool(
  c: Context<AppEnv>,
  app: Hono<AppEnv>,
  context: McpRouteContext,
  id: RpcId,
  params: Record<string, unknown>,
): Promise<Response> {
  const name = params['name'];
  let agent;
  try {
    agent = typeof name === 'string' ? await context.agents.get(name) : undefined;
  } catch (error) {
    // Listed by GET /agents as invalid: its file does not load.
    return c.json(rpcError(id, INVALID_PARAMS, cutText((error as Error).message, 300)));
  }
  if (agent === undefined || typeof name !== 'string')
    return c.json(
      rpcError(id, INVALID_PARAMS, `no tool (agent) named ${cutText(JSON.stringify(name) ?? 'nothing', 100)}`),
    );
  const input = params['arguments'] ?? {};
  if (!isPlainObject(input)) return c.json(rpcError(id, INVALID_PARAMS, 'arguments must be a JSON object'));
  const meta = isPlainObject(params['_meta']) ? params['_meta'] : {};
  const token = meta['progressToken'];
  const progress =
    (typeof token === 'string' || typeof token === 'number') &&
    (c.req.header('accept') ?? '').includes('text/event-stream');
  const headers = new Headers({
    'content-type': 'application/json',
    accept: progress ? 'text/event-stream' : 'application/json',
  });
  for (const header of ['authorization', 'host']) {
    const value = c.req.header(header);
    if (value !== undefined) headers.set(header, value);
  }
  const runRequest = new Request(new URL(`/agents/${encodeURIComponent(name)}/runs`, c.req.url), {
    method: 'POST',
    headers,
    body: JSON.stringify({ input }),
    signal: c.req.raw.signal,
  });
  const answer = await app.fetch(runRequest, c.env, executionContextOf(c));
  if (!progress || !(answer.headers.get('content-type') ?? '').includes('text/event-stream')) {
    return c.json(rpcResult(id, toolResult(await answer.json())));
  }
  return streamSSE(c, async (stream) => {
    const send = (message: unknown) =>
      stream.writeSSE({ event: 'message', data: context.sanitizer.text(JSON.stringify(message)) });
    let count = 0;
    let done: Record<string, unknown> = { error: { code: 'INTERNAL', message: 'the run ended without a done event' } };
    for await (const event of runEvents(answer)) {
      const note = progressNote(event);
      if (note !== undefined && !stream.aborted)
        await send({
          jsonrpc: '2.0',
          method: 'notifications/progress',
          params: { progressToken: token, progress: ++count, message: note },
        });
      if (event.type === 'done') done = { run_id: event.run_id, ...event.data };
    }
    if (!stream.aborted) await send(rpcResult(id, toolResult(done)));
  });
}

/** The run's events from an SSE answer of the runs route. */
async function* runEvents(answer: Response): AsyncGenerator<AgentEvent> {
  if (answer.body === null) return;
  const parser = createSseParser();
  const reader = answer.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      for (const event of done ? parser.finish() : parser.push(value)) {
        if (event.data !== '') yield JSON.parse(event.data) as AgentEvent;
      }
      if (done) return;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/** Workers' execution context, passed on so the inner run may use waitUntil; none on Node and Deno. */
function executionContextOf(c: Context<AppEnv>): ExecutionContext | undefined {
  try {
    return c.executionCtx;
  } catch {
    return undefined;
  }
}

/** A progress message for the events worth one: each node that ends, and a pause. */
function progressNote(event: AgentEvent): string | undefined {
  if (event.type === 'node_end') return `node '${event.node ?? ''}' done`;
  if (event.type === 'interrupt') return 'the run paused';
  return undefined;
}

/**
 * The runs route's answer (a run result, or a request error `{error}` when the run never started)
 * as an MCP tool result; a paused run is a resumable handle.
 */
export function toolResult(answer: Record<string, unknown>): Record<string, unknown> {
  const body = { ...answer };
  const runId = String(body['run_id'] ?? '');
  const interrupted = body['status'] === 'interrupted';
  if (interrupted) body['resume'] = `POST /runs/${runId}/resume`;
  const pause = isPlainObject(body['interrupt']) ? body['interrupt'] : {};
  const kind = typeof pause['kind'] === 'string' ? pause['kind'] : 'interrupt';
  // The pause's id, sent back in the resume body, keeps a retried resume from answering a later pause.
  const withBody =
    typeof pause['checkpoint_id'] === 'string'
      ? ` with the body {"checkpoint_id": ${JSON.stringify(pause['checkpoint_id'])}}`
      : '';
  const summary = interrupted
    ? `The run ${runId} is waiting for a human (${kind}); resume it with POST /runs/${runId}/resume${withBody}.\n`
    : '';
  return {
    content: [{ type: 'text', text: summary + JSON.stringify(body) }],
    structuredContent: body,
    isError: body['status'] !== 'completed' && !interrupted,
  };
}

function rpcResult(id: RpcId, result: unknown): RpcMessage {
  return { jsonrpc: '2.0', id, result };
}

function rpcError(id: RpcId | null, code: number, message: string): RpcMessage {
  return { jsonrpc: '2.0', id, error: { code, message } };
}
