/**
 * A mock OpenAI-compatible server for tests: real HTTP on 127.0.0.1 at a random port, Node only.
 *
 *   const server = await startMockOpenAI({ replies: ['Hello!', { tool_calls: [{ name: 'add', arguments: { a: 1 } }] }] });
 *   // point an agent at server.url (…/v1); inspect server.requests; server.setFault({ type: 'status', status: 503, times: 2 });
 *   await server.close();
 *
 * Routes: `GET /v1/models`, `POST /v1/chat/completions` (JSON, or SSE with `stream: true`),
 * `POST /v1/embeddings` (vectors from `options.embed`, default a 4-number summary of each text;
 * its own faults via `setEmbeddingsFault`), and `OPTIONS *` (CORS preflight, 204). Replies are used in order; the last one repeats when they run
 * out. Streams write a role chunk, content pieces of `chunkSize` characters, tool-call deltas, a
 * finish chunk, a usage chunk (when `stream_options.include_usage`) and `[DONE]`, each paced by
 * `chunkDelayMs`; `byteSplit` cuts each write into pieces of that many bytes (to exercise parsers).
 * Faults apply to the next `times` chat requests (default: until cleared with `setFault()`).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface MockReply {
  content?: string;
  tool_calls?: { name: string; arguments: unknown; id?: string }[];
  finish_reason?: string;
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens?: number };
  model?: string;
}

export type MockFault =
  /** Answer with this status (and optional Retry-After header value and body). */
  | { type: 'status'; status: number; retryAfter?: string; body?: string; times?: number }
  /** Wait this long before answering (past the client's timeout). */
  | { type: 'delay'; ms: number; times?: number }
  /** Stream: end the response after `afterChunks` chunks, with no finish and no [DONE]. */
  | { type: 'cut'; afterChunks: number; times?: number }
  /** Stream: destroy the socket after `afterChunks` chunks. Whole answers: destroy it halfway through the body. */
  | { type: 'reset'; afterChunks: number; times?: number }
  /** Stream: end in the middle of the first tool call's arguments. */
  | { type: 'cut_tool_call'; times?: number }
  /** Stream: replace chunk `at` (default 1) with text that is not JSON. */
  | { type: 'malformed_chunk'; at?: number; times?: number }
  /** Stream: write chunk `at` (default 1) twice. */
  | { type: 'duplicate_chunk'; at?: number; times?: number }
  /** A completion (or every stream chunk) with `choices: []`. */
  | { type: 'empty_choices'; times?: number }
  /** `finish_reason: "length"` with empty content. */
  | { type: 'length'; times?: number }
  /** A non-JSON body with status 200. */
  | { type: 'not_json'; times?: number }
  /** A 200 body of `bytes` bytes (default 50 MB), written in 1 MiB pieces. */
  | { type: 'huge_body'; bytes?: number; times?: number };

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body (undefined when none or not JSON). */
  body: any;
  /** Set when the client closed the connection before the response was complete. */
  aborted: boolean;
}

export interface MockOpenAIOptions {
  replies?: (MockReply | string)[];
  models?: string[];
  /** Characters per streamed content chunk (default 4). */
  chunkSize?: number;
  /** Pause between stream writes (default 0). */
  chunkDelayMs?: number;
  /** Cut every write into pieces of this many bytes (default: whole chunks). */
  byteSplit?: number;
  /** Answer CORS preflights and add CORS headers (default true). */
  cors?: boolean;
  /** The vector for one embeddings input (default: [length, words, vowels, 1] of the text). */
  embed?: (text: string, model: string | undefined) => number[];
  /** Called right after each content chunk is written: (chunk index, performance.now()). For benchmarks. */
  onContentChunkWritten?: (index: number, time: number) => void;
}

export interface MockOpenAI {
  /** Base URL including `/v1`. */
  url: string;
  requests: RecordedRequest[];
  /** Chat completion requests only. */
  readonly chatRequests: RecordedRequest[];
  setReplies(replies: (MockReply | string)[]): void;
  setFault(fault?: MockFault): void;
  /** `POST /v1/embeddings` requests only. */
  readonly embeddingRequests: RecordedRequest[];
  /** Faults for the next `times` embeddings requests: a status, a delay, or a body that is not JSON. */
  setEmbeddingsFault(fault?: Extract<MockFault, { type: 'status' | 'delay' | 'not_json' }>): void;
  close(): Promise<void>;
}

const CORS_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-allow-headers': 'content-type, authorization',
  'access-control-allow-methods': 'GET, POST, OPTIONS',
};

export async function startMockOpenAI(options: MockOpenAIOptions = {}): Promise<MockOpenAI> {
  let replies = (options.replies ?? ['Hello from the mock.']).map(normalizeReply);
  let replyIndex = 0;
  let fault: MockFault | undefined;
  let faultUses = 0;
  let embeddingsFault: Extract<MockFault, { type: 'status' | 'delay' | 'not_json' }> | undefined;
  let embeddingsFaultUses = 0;
  const requests: RecordedRequest[] = [];
  const cors = options.cors !== false;
  const sockets = new Set<import('node:net').Socket>();

  const server = createServer((request, response) => {
    void handle(request, response).catch(() => response.destroy());
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  function nextFault(): MockFault | undefined {
    if (fault === undefined) return undefined;
    const current = fault;
    faultUses++;
    if (current.times !== undefined && faultUses >= current.times) fault = undefined;
    return current;
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const raw = await readBody(request);
    let body: any;
    try {
      body = raw === '' ? undefined : JSON.parse(raw);
    } catch {
      body = undefined;
    }
    const recorded: RecordedRequest = {
      method: request.method ?? '',
      path: request.url ?? '',
      headers: { ...request.headers },
      body,
      aborted: false,
    };
    requests.push(recorded);
    response.on('close', () => {
      if (!response.writableFinished) recorded.aborted = true;
    });
    const headers: Record<string, string> = cors ? { ...CORS_HEADERS } : {};
    if (request.method === 'OPTIONS') {
      response.writeHead(cors ? 204 : 405, headers).end();
      return;
    }
    const path = (request.url ?? '').split('?')[0];
    if (request.method === 'GET' && path === '/v1/models') {
      const data = (options.models ?? ['mock-model']).map((id) => ({ id, object: 'model', owned_by: 'mock' }));
      response
        .writeHead(200, { ...headers, 'content-type': 'application/json' })
        .end(JSON.stringify({ object: 'list', data }));
      return;
    }
    if (request.method === 'POST' && path === '/v1/embeddings') {
      await answerEmbeddings(response, headers, body, recorded);
      return;
    }
    if (request.method !== 'POST' || path !== '/v1/chat/completions') {
      response
        .writeHead(404, { ...headers, 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: 'not found' } }));
      return;
    }
    const reply = replies[Math.min(replyIndex, replies.length - 1)] ?? {};
    replyIndex++;
    const active = nextFault();
    const model = reply.model ?? (typeof body?.model === 'string' ? body.model : 'mock-model');
    if (active?.type === 'delay') await pause(active.ms);
    if (recorded.aborted) return;
    if (active?.type === 'status') {
      if (active.retryAfter !== undefined) headers['retry-after'] = active.retryAfter;
      response.writeHead(active.status, { ...headers, 'content-type': 'application/json' });
      response.end(active.body ?? JSON.stringify({ error: { message: `mock status ${active.status}` } }));
      return;
    }
    if (active?.type === 'not_json') {
      response.writeHead(200, { ...headers, 'content-type': 'application/json' }).end('<html>not json</html>');
      return;
    }
    if (active?.type === 'huge_body') {
      await writeHuge(response, headers, active.bytes ?? 50 * 1024 * 1024, body?.stream === true);
      return;
    }
    const effective: Required<Pick<MockReply, 'content' | 'finish_reason'>> & MockReply =
      active?.type === 'length'
        ? { ...reply, content: '', tool_calls: undefined, finish_reason: 'length' }
        : {
            ...reply,
            content: reply.content ?? '',
            finish_reason: reply.finish_reason ?? (reply.tool_calls?.length ? 'tool_calls' : 'stop'),
          };
    if (body?.stream === true) {
      await writeStream(response, headers, effective, model, body, active);
      return;
    }
    const message: Record<string, unknown> = {
      role: 'assistant',
      content: effective.tool_calls?.length ? effective.content || null : effective.content,
    };
    if (effective.tool_calls?.length)
      message.tool_calls = effective.tool_calls.map((call, index) => toolCall(call, index));
    const completion = {
      id: 'chatcmpl-mock',
      object: 'chat.completion',
      created: 1_700_000_000,
      model,
      choices: active?.type === 'empty_choices' ? [] : [{ index: 0, message, finish_reason: effective.finish_reason }],
      usage: usageOf(effective),
    };
    const text = JSON.stringify(completion);
    if (active?.type === 'reset') {
      // A connection that breaks while the body arrives: half of it, then the socket is destroyed.
      response.writeHead(200, {
        ...headers,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(text)),
      });
      response.flushHeaders();
      await write(response, text.slice(0, Math.floor(text.length / 2)));
      await pause(20); // let the client receive the headers and the first half before the break
      response.destroy();
      return;
    }
    response.writeHead(200, { ...headers, 'content-type': 'application/json' }).end(text);
  }

  async function answerEmbeddings(
    response: ServerResponse,
    headers: Record<string, string>,
    body: any,
    recorded: RecordedRequest,
  ): Promise<void> {
    const active = embeddingsFault;
    if (active !== undefined) {
      embeddingsFaultUses++;
      if (active.times !== undefined && embeddingsFaultUses >= active.times) embeddingsFault = undefined;
    }
    if (active?.type === 'delay') await pause(active.ms);
    if (recorded.aborted) return;
    if (active?.type === 'status') {
      if (active.retryAfter !== undefined) headers['retry-after'] = active.retryAfter;
      response
        .writeHead(active.status, { ...headers, 'content-type': 'application/json' })
        .end(active.body ?? JSON.stringify({ error: { message: `mock status ${active.status}` } }));
      return;
    }
    if (active?.type === 'not_json') {
      response.writeHead(200, { ...headers, 'content-type': 'application/json' }).end('<html>not json</html>');
      return;
    }
    const inputs: unknown[] = Array.isArray(body?.input) ? body.input : [body?.input];
    if (!inputs.every((input) => typeof input === 'string')) {
      response
        .writeHead(400, { ...headers, 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: 'input must be a string or a list of strings' } }));
      return;
    }
    const model = typeof body?.model === 'string' ? body.model : undefined;
    const vectorOf =
      options.embed ??
      ((text: string) => [
        text.length,
        text.split(/\s+/).filter(Boolean).length,
        (text.match(/[aeiou]/gi) ?? []).length,
        1,
      ]);
    const data = (inputs as string[]).map((text, index) => ({
      object: 'embedding',
      index,
      embedding: vectorOf(text, model),
    }));
    const tokens = (inputs as string[]).reduce((sum, text) => sum + Math.max(1, Math.ceil(text.length / 4)), 0);
    response.writeHead(200, { ...headers, 'content-type': 'application/json' }).end(
      JSON.stringify({
        object: 'list',
        data,
        model: model ?? 'mock-embed',
        usage: { prompt_tokens: tokens, total_tokens: tokens },
      }),
    );
  }

  async function writeStream(
    response: ServerResponse,
    headers: Record<string, string>,
    reply: MockReply & { content: string; finish_reason: string },
    model: string,
    body: any,
    active: MockFault | undefined,
  ): Promise<void> {
    response.writeHead(200, { ...headers, 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    response.flushHeaders();
    const base = { id: 'chatcmpl-mock', object: 'chat.completion.chunk', created: 1_700_000_000, model };
    const chunk = (choice: Record<string, unknown> | undefined, extra: Record<string, unknown> = {}) =>
      JSON.stringify({
        ...base,
        choices: active?.type === 'empty_choices' || choice === undefined ? [] : [choice],
        ...extra,
      });
    const payloads: { data: string; content?: boolean }[] = [
      { data: chunk({ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }) },
    ];
    const size = Math.max(1, options.chunkSize ?? 4);
    for (let start = 0; start < reply.content.length; start += size) {
      payloads.push({
        data: chunk({ index: 0, delta: { content: reply.content.slice(start, start + size) }, finish_reason: null }),
        content: true,
      });
    }
    let cutToolCallAt: number | undefined;
    (reply.tool_calls ?? []).forEach((call, index) => {
      const full = toolCall(call, index);
      payloads.push({
        data: chunk({
          index: 0,
          delta: {
            tool_calls: [
              { index, id: full.id, type: 'function', function: { name: full.function.name, arguments: '' } },
            ],
          },
          finish_reason: null,
        }),
      });
      const text = full.function.arguments;
      const half = Math.ceil(text.length / 2);
      payloads.push({
        data: chunk({
          index: 0,
          delta: { tool_calls: [{ index, function: { arguments: text.slice(0, half) } }] },
          finish_reason: null,
        }),
      });
      if (index === 0) cutToolCallAt = payloads.length;
      payloads.push({
        data: chunk({
          index: 0,
          delta: { tool_calls: [{ index, function: { arguments: text.slice(half) } }] },
          finish_reason: null,
        }),
      });
    });
    payloads.push({ data: chunk({ index: 0, delta: {}, finish_reason: reply.finish_reason }) });
    if (body?.stream_options?.include_usage === true)
      payloads.push({ data: chunk(undefined, { choices: [], usage: usageOf(reply) }) });
    payloads.push({ data: '[DONE]' });

    const stopAt =
      active?.type === 'cut' || active?.type === 'reset'
        ? active.afterChunks
        : active?.type === 'cut_tool_call'
          ? (cutToolCallAt ?? 1)
          : Infinity;
    let contentIndex = 0;
    for (let index = 0; index < payloads.length; index++) {
      if (index >= stopAt) {
        if (active?.type === 'reset') response.destroy();
        else response.end();
        return;
      }
      if (response.destroyed || response.writableEnded) return;
      const payload = payloads[index]!;
      const data =
        active?.type === 'malformed_chunk' && index === (active.at ?? 1)
          ? '{"choices": [{"delta": {"content": "bro'
          : payload.data;
      const times = active?.type === 'duplicate_chunk' && index === (active.at ?? 1) ? 2 : 1;
      for (let repeat = 0; repeat < times; repeat++) await write(response, `data: ${data}\n\n`);
      if (payload.content === true) options.onContentChunkWritten?.(contentIndex++, performance.now());
      if (options.chunkDelayMs !== undefined && options.chunkDelayMs > 0) await pause(options.chunkDelayMs);
    }
    response.end();
  }

  async function write(response: ServerResponse, text: string): Promise<void> {
    const bytes = Buffer.from(text, 'utf8');
    const step = options.byteSplit ?? bytes.length;
    for (let start = 0; start < bytes.length; start += step) {
      if (!response.write(bytes.subarray(start, start + step))) await drained(response);
    }
  }

  async function writeHuge(
    response: ServerResponse,
    headers: Record<string, string>,
    bytes: number,
    stream: boolean,
  ): Promise<void> {
    response.writeHead(200, { ...headers, 'content-type': stream ? 'text/event-stream' : 'application/json' });
    const piece = stream ? Buffer.from(`: ${'x'.repeat(1024 * 1024 - 4)}\n\n`) : Buffer.alloc(1024 * 1024, 0x20);
    for (let written = 0; written < bytes && !response.destroyed; written += piece.length) {
      if (!response.write(piece)) await drained(response);
    }
    if (!response.destroyed) response.end();
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    get chatRequests() {
      return requests.filter((request) => request.path.startsWith('/v1/chat/completions') && request.method === 'POST');
    },
    setReplies(next) {
      replies = next.map(normalizeReply);
      replyIndex = 0;
    },
    setFault(next) {
      fault = next;
      faultUses = 0;
    },
    get embeddingRequests() {
      return requests.filter((request) => request.path.startsWith('/v1/embeddings') && request.method === 'POST');
    },
    setEmbeddingsFault(next) {
      embeddingsFault = next;
      embeddingsFaultUses = 0;
    },
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

function normalizeReply(reply: MockReply | string): MockReply {
  return typeof reply === 'string' ? { content: reply } : reply;
}

function toolCall(call: { name: string; arguments: unknown; id?: string }, index: number) {
  const text = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {});
  return { id: call.id ?? `call_mock_${index}`, type: 'function', function: { name: call.name, arguments: text } };
}

function usageOf(reply: MockReply) {
  const usage = reply.usage ?? {
    prompt_tokens: 10,
    completion_tokens: Math.max(1, Math.ceil((reply.content ?? '').length / 4)),
  };
  return { ...usage, total_tokens: usage.total_tokens ?? usage.prompt_tokens + usage.completion_tokens };
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    request.on('data', (part: Buffer) => parts.push(part));
    request.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    request.on('error', reject);
  });
}

/** Resolves when the response can take more data or has closed (listeners removed either way). */
function drained(response: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      response.off('drain', done);
      response.off('close', done);
      resolve();
    };
    response.on('drain', done);
    response.on('close', done);
  });
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
