/**
 * A Model Context Protocol client for the Streamable HTTP transport, over `fetch` only: JSON-RPC
 * requests are POSTed to the server's one URL, and the answer is either a JSON body or an SSE
 * stream whose events carry JSON-RPC messages (the response with our id ends it; notifications
 * and server requests on the way are skipped). Written here instead of using the official SDK's
 * client because that client bundles ajv and zod, which carry `new Function` (docs/mcp.md).
 *
 * Everything a server sends is untrusted: every body is read under a byte cap, every request has
 * a timeout and follows the run's AbortSignal, JSON is parsed with depth limits, and redirects
 * are never followed (a server cannot move us to another origin).
 * https://modelcontextprotocol.io/specification/2025-06-18/basic/transports#streamable-http
 */
import { AgentError } from '../core/agent-error.js';
import { createSseParser } from '../llm/sse-parser.js';
import { messageOf } from '../util/message-of.js';
import { isPlainObject } from '../util/plain-object.js';
import { parseJsonSafely } from '../util/untrusted-json.js';
import { cutText, quoteText } from '../util/cut-text.js';

/** The protocol revision this client speaks first (servers may answer an older one). */
export const MCP_PROTOCOL_VERSION = '2025-06-18';
/** Deepest JSON nesting accepted from a server (schemas and results included). */
const JSON_DEPTH = 64;
const KNOWN_VERSIONS = new Set(['2025-06-18', '2025-03-26', '2024-11-05', '2025-11-25']);

export interface McpClientOptions {
  /** The server's endpoint (already checked against the network policy by the caller). */
  url: URL;
  /** Extra request headers (authorization from the host's secrets). */
  headers: Record<string, string>;
  /** Most bytes of one response body (JSON or the whole SSE stream up to our answer). */
  maxBytes: number;
  /** Milliseconds one request may take, body included. */
  timeoutMs: number;
  signal: AbortSignal;
  /** Injected for tests and hosts; default: the global fetch. */
  fetch?: typeof fetch;
}

/** A connected session: `request` sends one JSON-RPC call and returns its `result`. */
export interface McpSession {
  readonly serverInfo: Record<string, unknown>;
  readonly protocolVersion: string;
  request(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** Ends the session (DELETE with the session id, when the server gave one); never throws. */
  close(): Promise<void>;
}

/** Opens a session: `initialize`, then `notifications/initialized`. */
export async function connectMcp(options: McpClientOptions): Promise<McpSession> {
  const state: ConnectionState = { options, sessionId: undefined, protocolVersion: undefined, nextId: 1 };
  const init = await send(state, 'initialize', {
    protocolVersion: MCP_PROTOCOL_VERSION,
    capabilities: {},
    clientInfo: { name: 'tea-edge', version: '1' },
  });
  const version = typeof init['protocolVersion'] === 'string' ? init['protocolVersion'] : '';
  if (!KNOWN_VERSIONS.has(version))
    throw mcpError(
      options.url,
      `the server speaks protocol version ${quoteText(version, 40)}, which tea-edge does not know`,
    );
  state.protocolVersion = version;
  await notify(state, 'notifications/initialized');
  return {
    serverInfo: isPlainObject(init['serverInfo']) ? init['serverInfo'] : {},
    protocolVersion: version,
    request: (method, params) => send(state, method, params),
    close: () => closeSession(state),
  };
}

interface ConnectionState {
  options: McpClientOptions;
  sessionId: string | undefined;
  protocolVersion: string | undefined;
  nextId: number;
}

function headersOf(state: ConnectionState): Record<string, string> {
  const headers: Record<string, string> = {
    ...state.options.headers,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
  if (state.sessionId !== undefined) headers['mcp-session-id'] = state.sessionId;
  if (state.protocolVersion !== undefined) headers['mcp-protocol-version'] = state.protocolVersion;
  return headers;
}

/** One timed request: the signal aborts on the run's signal or after `timeoutMs`. */
async function withDeadline<T>(state: ConnectionState, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const { options } = state;
  const controller = new AbortController();
  const onAbort = (): void => controller.abort();
  options.signal.addEventListener('abort', onAbort);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, options.timeoutMs);
  try {
    return await work(controller.signal);
  } catch (error) {
    if (options.signal.aborted) throw new AgentError('CANCELLED', 'the run was cancelled');
    if (timedOut)
      throw mcpError(options.url, `no complete answer within ${options.timeoutMs} ms`, { limit: 'timeout_ms' });
    if (AgentError.isInstance(error)) throw error;
    throw mcpError(options.url, `request failed: ${messageOf(error)}`);
  } finally {
    clearTimeout(timer);
    options.signal.removeEventListener('abort', onAbort);
  }
}

async function send(
  state: ConnectionState,
  method: string,
  params: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const id = state.nextId++;
  return withDeadline(state, async (signal) => {
    const response = await post(state, { jsonrpc: '2.0', id, method, params }, signal);
    const session = response.headers.get('mcp-session-id');
    if (method === 'initialize' && session !== null && /^[\x21-\x7e]{1,256}$/.test(session)) state.sessionId = session;
    const type = (response.headers.get('content-type') ?? '').toLowerCase();
    const message = type.includes('text/event-stream')
      ? await readSseAnswer(response, id, state.options, signal)
      : readJsonAnswer(await readCapped(response, state.options, signal), id, state.options);
    return resultOf(message, method, state.options.url);
  });
}

async function notify(state: ConnectionState, method: string): Promise<void> {
  await withDeadline(state, async (signal) => {
    const response = await post(state, { jsonrpc: '2.0', method }, signal);
    await response.body?.cancel().catch(() => undefined);
  });
}

async function post(state: ConnectionState, body: unknown, signal: AbortSignal): Promise<Response> {
  const { options } = state;
  const doFetch = options.fetch ?? fetch;
  const response = await doFetch(options.url.href, {
    method: 'POST',
    headers: headersOf(state),
    body: JSON.stringify(body),
    redirect: 'manual',
    signal,
  });
  if (response.status >= 300 && response.status < 400) {
    await response.body?.cancel().catch(() => undefined);
    throw mcpError(options.url, `the server answered a redirect (HTTP ${response.status}); redirects are not followed`);
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw mcpError(options.url, `the server answered HTTP ${response.status}`, { status: response.status });
  }
  return response;
}

async function closeSession(state: ConnectionState): Promise<void> {
  if (state.sessionId === undefined) return;
  try {
    await withDeadline(state, async (signal) => {
      const response = await (state.options.fetch ?? fetch)(state.options.url.href, {
        method: 'DELETE',
        headers: headersOf(state),
        redirect: 'manual',
        signal,
      });
      await response.body?.cancel().catch(() => undefined);
    });
  } catch {
    // Ending a session is a courtesy: the server drops idle sessions anyway.
  }
}

/**
 * A reader of the body that is cancelled when `signal` aborts (timeout or the run's cancellation):
 * not every fetch ties its signal to a body already being read, and a stalled read must end.
 */
function abortableReader(
  body: ReadableStream<Uint8Array>,
  signal: AbortSignal,
): ReadableStreamDefaultReader<Uint8Array> {
  const reader = body.getReader();
  const cancel = (): void => void reader.cancel().catch(() => undefined);
  if (signal.aborted) cancel();
  else signal.addEventListener('abort', cancel, { once: true });
  return reader;
}

async function readCapped(response: Response, options: McpClientOptions, signal: AbortSignal): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > options.maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw tooLarge(options);
  }
  if (response.body === null) return '';
  const reader = abortableReader(response.body, signal);
  const decoder = new TextDecoder('utf-8');
  let text = '';
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (signal.aborted) throw new Error('aborted');
    total += value.byteLength;
    if (total > options.maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(options);
    }
    text += decoder.decode(value, { stream: true });
  }
  if (signal.aborted) throw new Error('aborted');
  return text + decoder.decode();
}

/** Reads SSE events until the response with `id` arrives; counts every byte of the stream. */
async function readSseAnswer(
  response: Response,
  id: number,
  options: McpClientOptions,
  signal: AbortSignal,
): Promise<Record<string, unknown>> {
  if (response.body === null) throw mcpError(options.url, 'the event stream has no body');
  const reader = abortableReader(response.body, signal);
  const parser = createSseParser();
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (signal.aborted) throw new Error('aborted');
      const events = done ? parser.finish() : parser.push(value);
      if (!done) {
        total += value.byteLength;
        if (total > options.maxBytes) throw tooLarge(options);
      }
      for (const event of events) {
        if (event.event !== 'message' || event.data === '') continue;
        const parsed = parseJsonSafely(event.data, { maxLength: options.maxBytes, maxDepth: JSON_DEPTH });
        if (!parsed.ok || !isPlainObject(parsed.value))
          throw mcpError(
            options.url,
            `an event of the stream is not a JSON-RPC message (${parsed.ok ? 'not an object' : parsed.error})`,
          );
        if (parsed.value['id'] === id && !('method' in parsed.value)) return parsed.value;
        // Notifications (progress, list_changed) and requests from the server are not answered:
        // tea-edge offers no client capabilities, and a changed tool list changes nothing mid-run.
      }
      if (done) throw mcpError(options.url, 'the event stream ended before the answer');
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

function readJsonAnswer(text: string, id: number, options: McpClientOptions): Record<string, unknown> {
  const { url } = options;
  const parsed = parseJsonSafely(text, { maxLength: options.maxBytes, maxDepth: JSON_DEPTH });
  if (!parsed.ok) throw mcpError(url, `the answer is not JSON (${parsed.error})`);
  const messages = Array.isArray(parsed.value) ? parsed.value : [parsed.value];
  const answer = messages.find((message) => isPlainObject(message) && message['id'] === id);
  if (!isPlainObject(answer)) throw mcpError(url, 'the answer holds no JSON-RPC response to the request');
  return answer;
}

function resultOf(message: Record<string, unknown>, method: string, url: URL): Record<string, unknown> {
  const error = message['error'];
  if (isPlainObject(error)) {
    const text = typeof error['message'] === 'string' ? cutText(error['message'], 500) : 'no message';
    throw mcpError(url, `${method} failed: ${text} (JSON-RPC error ${cutText(String(error['code']), 20)})`, {
      rpc_code: error['code'],
    });
  }
  const result = message['result'];
  if (!isPlainObject(result)) throw mcpError(url, `${method}: the response has no result object`);
  return result;
}

function tooLarge(options: McpClientOptions): AgentError {
  return mcpError(options.url, `the answer is larger than ${options.maxBytes} bytes`, { limit: 'max_bytes' });
}

/** An MCP failure: ACTION_FAILED naming the server's origin (never its path or query). */
export function mcpError(url: URL, message: string, details: Record<string, unknown> = {}): AgentError {
  return new AgentError('ACTION_FAILED', `MCP server ${url.origin}: ${message}`, {
    details: { mcp_origin: url.origin, ...details },
  });
}
