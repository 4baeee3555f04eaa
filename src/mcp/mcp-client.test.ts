/** The MCP client against scripted `fetch` answers: JSON and SSE answers, sessions, refusals. */
import { describe, expect, it } from 'vitest';
import { AgentError } from '../core/agent-error.js';
import { connectMcp, type McpClientOptions } from './mcp-client.js';

type Answer = (body: Record<string, unknown>, headers: Headers) => Response;

/** A fetch that answers each JSON-RPC POST with `answer` and records every request. */
function scriptedFetch(answer: Answer) {
  const requests: Array<{ method: string; body: Record<string, unknown> | undefined; headers: Headers }> = [];
  const fetchFn = (async (_url: string, init: RequestInit) => {
    const headers = new Headers(init.headers);
    const body = typeof init.body === 'string' ? (JSON.parse(init.body) as Record<string, unknown>) : undefined;
    requests.push({ method: String(init.method), body, headers });
    if (body === undefined || body['id'] === undefined) return new Response(null, { status: 202 });
    return answer(body, headers);
  }) as unknown as typeof fetch;
  return { fetchFn, requests };
}

const json = (value: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(value), { headers: { 'content-type': 'application/json', ...headers } });
const initialized = (body: Record<string, unknown>, version = '2025-06-18') => ({
  jsonrpc: '2.0',
  id: body['id'],
  result: { protocolVersion: version, capabilities: {}, serverInfo: { name: 's' } },
});

function options(fetchFn: typeof fetch, extra: Partial<McpClientOptions> = {}): McpClientOptions {
  return {
    url: new URL('http://mcp.test/mcp'),
    headers: { authorization: 'Bearer t' },
    maxBytes: 64 * 1024,
    timeoutMs: 2000,
    signal: new AbortController().signal,
    fetch: fetchFn,
    ...extra,
  };
}

async function failure(promise: Promise<unknown>): Promise<AgentError> {
  try {
    await promise;
  } catch (error) {
    if (AgentError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a failure');
}

describe('connectMcp', () => {
  it('initializes, keeps the session id and protocol version on later requests, and reads SSE answers past notifications', async () => {
    const { fetchFn, requests } = scriptedFetch((body) => {
      if (body['method'] === 'initialize') return json(initialized(body), { 'mcp-session-id': 'session-1' });
      const events = [
        `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progress: 1 } })}\n\n`,
        `: keep-alive\n\n`,
        `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: body['id'], result: { tools: [] } })}\n\n`,
      ].join('');
      return new Response(events, { headers: { 'content-type': 'text/event-stream' } });
    });
    const session = await connectMcp(options(fetchFn));
    expect(await session.request('tools/list', {})).toEqual({ tools: [] });
    expect(requests.map((request) => request.body?.['method'])).toEqual([
      'initialize',
      'notifications/initialized',
      'tools/list',
    ]);
    const last = requests.at(-1)!.headers;
    expect(last.get('mcp-session-id')).toBe('session-1');
    expect(last.get('mcp-protocol-version')).toBe('2025-06-18');
    expect(last.get('authorization')).toBe('Bearer t');
    expect(last.get('accept')).toBe('application/json, text/event-stream');
  });

  it('refuses an unknown protocol version, a redirect, an HTTP error and a JSON-RPC error, naming the origin only', async () => {
    const version = scriptedFetch((body) => json(initialized(body, '1999-01-01')));
    expect((await failure(connectMcp(options(version.fetchFn)))).message).toContain('protocol version "1999-01-01"');
    const redirect = scriptedFetch(
      () => new Response(null, { status: 307, headers: { location: 'http://elsewhere.test/' } }),
    );
    expect(
      (await failure(connectMcp(options(redirect.fetchFn, { url: new URL('http://mcp.test/mcp?key=secret') }))))
        .message,
    ).toMatch(/^MCP server http:\/\/mcp\.test: the server answered a redirect/);
    const status = scriptedFetch(() => new Response('no', { status: 500 }));
    expect((await failure(connectMcp(options(status.fetchFn)))).details).toMatchObject({ status: 500 });
    const rpc = scriptedFetch((body) =>
      body['method'] === 'initialize'
        ? json(initialized(body))
        : json({ jsonrpc: '2.0', id: body['id'], error: { code: -32601, message: 'nope' } }),
    );
    const session = await connectMcp(options(rpc.fetchFn));
    expect((await failure(session.request('tools/list', {}))).message).toContain(
      'tools/list failed: nope (JSON-RPC error -32601)',
    );
  });

  it('stops reading past maxBytes (declared or streamed) and past timeoutMs', async () => {
    const declared = scriptedFetch(
      () =>
        new Response('{}', {
          headers: { 'content-type': 'application/json', 'content-length': String(10 * 1024 * 1024) },
        }),
    );
    expect((await failure(connectMcp(options(declared.fetchFn)))).details).toMatchObject({ limit: 'max_bytes' });
    const endless = scriptedFetch(() => {
      const chunk = new TextEncoder().encode(`: ${'x'.repeat(1000)}\n\n`);
      return new Response(new ReadableStream({ pull: (controller) => controller.enqueue(chunk) }), {
        headers: { 'content-type': 'text/event-stream' },
      });
    });
    expect((await failure(connectMcp(options(endless.fetchFn)))).details).toMatchObject({ limit: 'max_bytes' });
    const silent = scriptedFetch(
      () =>
        new Response(new ReadableStream({ pull: () => new Promise(() => undefined) }), {
          headers: { 'content-type': 'text/event-stream' },
        }),
    );
    expect((await failure(connectMcp(options(silent.fetchFn, { timeoutMs: 50 })))).details).toMatchObject({
      limit: 'timeout_ms',
    });
  });

  it("the run's cancellation ends a request as CANCELLED", async () => {
    const controller = new AbortController();
    const silent = scriptedFetch(
      () =>
        new Response(new ReadableStream({ pull: () => new Promise(() => undefined) }), {
          headers: { 'content-type': 'text/event-stream' },
        }),
    );
    const pending = connectMcp(options(silent.fetchFn, { signal: controller.signal }));
    setTimeout(() => controller.abort(), 20);
    expect((await failure(pending)).code).toBe('CANCELLED');
  });
});
