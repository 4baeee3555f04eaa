/**
 * The OpenAI-compatible Chat Completions client over `fetch` (Ollama, LM Studio, llama.cpp server,
 * vLLM, OpenAI, any `/v1/chat/completions`). Portable: fetch, streams, TextDecoder, AbortSignal.
 *
 * Each attempt's timer measures the server's silence (model-timeouts.ts): a whole answer or a
 * stream gets `first_token_timeout` (120 s) for its first byte, then `timeout` (60 s) between
 * bytes, so a hung server frees the run in minutes while a slow CPU model may start; bytes arriving
 * restart it. Only what a retry can cure is retried, with backoff up to `max_retries`, honouring
 * `Retry-After`: timeouts (once), no connection, 408/409/425/429 and 5xx but 501 and 505
 * (llm-errors.ts `isRetryableStatus`). A stream is retried only until its response headers
 * arrive, so no part is ever delivered twice; a body over the size cap, a cut body and a bad
 * answer are never retried. Errors quote the server's own message (server-error.ts); `<think>`
 * thinking and reasoning fields become `reasoning`.
 */
import { AgentError, isAbortError } from '../core/agent-error.js';
import type {
  LlmCallHooks,
  LlmConnection,
  ModelProvider,
  LlmRequest,
  LlmResponse,
  LlmStreamPart,
} from '../core/model-provider.js';
import { createAttemptController, type AttemptController } from './attempt-controller.js';
import { createChatStreamAssembler, type ChunkDelta } from './chat-stream-assembler.js';
import { describeFetchFailure } from './fetch-failure.js';
import { badResponse, httpError, isRetryable, serverReportedError, timeoutError } from './llm-errors.js';
import { attemptTimeouts } from './model-timeouts.js';
import { parseChatCompletion } from './parse-chat-completion.js';
import { checkDeclaredLength, DEFAULT_MAX_RESPONSE_BYTES, readCappedBody, tooLarge } from './read-capped-body.js';
import { DEFAULT_RETRY_TIMING, parseRetryAfter, retryDelay, type RetryTiming } from './retry.js';
import { abortError, sleep } from '../util/abort.js';
import { messageOf } from '../util/message-of.js';
import { serverErrorMessageOfBody, serverErrorMessageOfJson } from './server-error.js';
import { createSseParser } from './sse-parser.js';
import { knownServer, nativeToolCallsAdvice, toolCallsFromText } from './text-tool-calls.js';

/** Timed-out attempts retried at most this often: two silences in a row mean a stuck server. */
export const MAX_TIMEOUT_RETRIES = 1;
/** Retries after the first attempt when none is configured. */
export const DEFAULT_MAX_RETRIES = 2;
/** How much of an error body is read to quote it. */
const ERROR_BODY_LIMIT = 64 * 1024;

export interface OpenAiClientOptions {
  /** The fetch to use (default: globalThis.fetch, looked up at call time). */
  fetch?: typeof fetch;
  retryTiming?: Partial<RetryTiming>;
  /** Response body cap in bytes (default 8 MiB). */
  maxResponseBytes?: number;
  /** Random source for jitter (tests pass a fixed one). */
  random?: () => number;
}

/**
 * Creates a provider for one connection; `api_base` is required here (presets are resolved by
 * `createProvider`).
 * @example
 * const client = createOpenAiClient({ api_base: 'http://localhost:11434/v1' });
 * const response = await client.generate({ model: 'llama3.2', messages: [{ role: 'user', content: 'Hi' }] });
 */
export function createOpenAiClient(
  connection: LlmConnection & { api_base: string },
  options: OpenAiClientOptions = {},
): ModelProvider {
  const url = chatCompletionsUrl(connection.api_base);
  const displayUrl = withoutCredentials(url);
  const { firstByteMs, idleMs } = attemptTimeouts(connection);
  const maxRetries = connection.max_retries ?? DEFAULT_MAX_RETRIES;
  const timing: RetryTiming = { ...DEFAULT_RETRY_TIMING, ...options.retryTiming };
  const maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const secrets = connection.api_key !== undefined && connection.api_key !== '' ? [connection.api_key] : [];

  /** One POST; returns the 2xx response or throws a typed error (with `retry_after_ms` for retries). */
  async function post(request: LlmRequest, stream: boolean, attempt: AttemptController): Promise<Response> {
    const fetchFunction = options.fetch ?? globalThis.fetch;
    let response: Response;
    try {
      response = await fetchFunction(url, {
        method: 'POST',
        headers: requestHeaders(connection.api_key, stream),
        body: JSON.stringify(requestBody(request, stream)),
        signal: attempt.signal,
      });
    } catch (error) {
      throw classifyFailure(error, attempt, displayUrl);
    }
    if (response.ok) return response;
    const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'), Date.now());
    const body = await readCappedBody(response, ERROR_BODY_LIMIT).catch(() => '');
    const error = httpError(response.status, displayUrl, body, secrets);
    if (retryAfterMs !== undefined) error.details.retry_after_ms = retryAfterMs;
    throw error;
  }

  /** Runs `attemptOnce` until it succeeds, fails for good, or retries run out. */
  async function withRetries<T>(
    signal: AbortSignal | undefined,
    hooks: LlmCallHooks | undefined,
    attemptOnce: () => Promise<T>,
  ): Promise<T> {
    let timeouts = 0;
    for (let attempt = 1; ; attempt++) {
      try {
        return await attemptOnce();
      } catch (error) {
        if (signal?.aborted) throw abortError(signal);
        if (!isRetryable(error) || attempt > maxRetries) throw error;
        const typed = error as AgentError;
        if (typed.code === 'LLM_TIMEOUT' && ++timeouts > MAX_TIMEOUT_RETRIES) throw error;
        const retryAfter = typeof typed.details.retry_after_ms === 'number' ? typed.details.retry_after_ms : undefined;
        const delay = retryDelay(attempt, retryAfter, timing, options.random);
        hooks?.beforeRetry?.({
          attempt: attempt + 1,
          delay_ms: delay,
          error: { code: typed.code, message: typed.message },
        });
        await sleep(delay, signal);
      }
    }
  }

  const server = knownServer(connection.provider, connection.api_base);
  /** Numbers the answers whose tool calls were read from text, so their ids never repeat on this connection. */
  let textCallNumber = 0;

  /** With tools offered and no native call, tool calls the model wrote as text become the answer's calls. */
  function withTextToolCalls(response: LlmResponse, request: LlmRequest): LlmResponse {
    const tools = request.tools ?? [];
    if (tools.length === 0 || (response.tool_calls?.length ?? 0) > 0) return response;
    const offered = new Map(tools.map((tool) => [tool.function.name, tool.function.parameters ?? {}]));
    const found = toolCallsFromText(response.content, offered, `text_call_${textCallNumber}`);
    if (found === undefined) return response;
    if (found.kind === 'unrecognised') {
      throw new AgentError(
        'LLM_BAD_RESPONSE',
        `the model answered with a tool call written as text (${found.marker}) in a form tea-edge does not read, so no tool ran: the server did not parse it. To fix: ${nativeToolCallsAdvice(server)}`,
        { details: { reason: 'tool_calls_as_text', retryable: false } },
      );
    }
    textCallNumber++;
    return {
      ...response,
      content: found.text,
      tool_calls: found.calls,
      tool_call_format: found.format,
      finish_reason: 'tool_calls',
    };
  }

  return {
    // Each attempt serialises the request afresh and nothing of it is kept after the call.
    borrowsRequest: true,
    async generate(request, signal, hooks) {
      return withRetries(signal, hooks, async () => {
        // The headers and the first byte (a whole answer generated on a slow CPU comes late), then
        // each byte restarts the timer for the next gap: a body read to its cap is not a silent server.
        const attempt = createAttemptController(signal, firstByteMs);
        try {
          const response = await post(request, false, attempt);
          const body = await readCappedBody(response, maxBytes, () => attempt.touch(idleMs)).catch((error: unknown) => {
            throw AgentError.isInstance(error) ? error : classifyFailure(error, attempt, displayUrl, true);
          });
          return withTextToolCalls(parseChatCompletion(body, request.model, secrets), request);
        } finally {
          attempt.dispose();
        }
      });
    },

    async *stream(request, signal, hooks): AsyncGenerator<LlmStreamPart> {
      let attempt: AttemptController | undefined;
      const response = await withRetries(signal, hooks, async () => {
        attempt?.dispose();
        attempt = createAttemptController(signal, firstByteMs);
        return post(request, true, attempt);
      }).catch((error: unknown) => {
        attempt?.dispose();
        throw error;
      });
      const current = attempt as AttemptController;
      try {
        const contentType = (response.headers.get('content-type') ?? '').toLowerCase();
        if (contentType.includes('json') && !contentType.includes('event-stream')) {
          // Some servers ignore `stream: true` and answer with one JSON body: accept it whole.
          const body = await readCappedBody(response, maxBytes, () => current.touch(idleMs)).catch((error: unknown) => {
            throw classifyFailure(error, current, displayUrl, true);
          });
          const whole = parseChatCompletion(body, request.model, secrets);
          if (whole.reasoning !== undefined) yield { type: 'reasoning_delta', content: whole.reasoning };
          if (whole.content !== '') yield { type: 'delta', content: whole.content };
          yield { type: 'done', response: withTextToolCalls(whole, request) };
          return;
        }
        for await (const part of readEventStream(
          response,
          request.model,
          maxBytes,
          current,
          displayUrl,
          idleMs,
          secrets,
        )) {
          yield part.type === 'done' ? { type: 'done', response: withTextToolCalls(part.response, request) } : part;
        }
      } finally {
        current.dispose();
      }
    },
  };
}

async function* readEventStream(
  response: Response,
  requestedModel: string | undefined,
  maxBytes: number,
  attempt: AttemptController,
  displayUrl: string,
  idleMs: number,
  secrets: readonly string[],
): AsyncGenerator<LlmStreamPart> {
  checkDeclaredLength(response, maxBytes);
  if (response.body === null) throw badResponse('the streamed response has no body');
  const reader = response.body.getReader();
  const parser = createSseParser();
  const assembler = createChatStreamAssembler(requestedModel, { secrets });
  let total = 0;
  let finishedReading = false;
  try {
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (error) {
        throw classifyFailure(error, attempt, displayUrl, true);
      }
      const events = chunk.done ? parser.finish() : parser.push(chunk.value);
      if (!chunk.done) {
        attempt.touch(idleMs);
        total += chunk.value.byteLength;
        if (total > maxBytes) throw tooLarge(maxBytes);
      }
      for (const event of events) {
        // Parts already received are not handed out once the call is cancelled or timed out.
        if (attempt.signal.aborted) throw classifyFailure(attempt.signal.reason, attempt, displayUrl, true);
        // llama.cpp's `error:` field, or an event named `error`: the server's failure, in its words.
        if (event.error !== undefined)
          throw serverReportedError(serverErrorMessageOfBody(event.error), 'in its stream', secrets);
        if (event.event === 'error')
          throw serverReportedError(serverErrorMessageOfBody(event.data), 'in its stream', secrets);
        const strayMessage = event.stray === undefined ? undefined : serverErrorMessageOfJson(event.stray);
        if (strayMessage !== undefined) throw serverReportedError(strayMessage, 'in its stream', secrets);
        if (event.data === '' && (event.error !== undefined || event.stray !== undefined)) continue;
        if (event.event !== 'message') continue;
        const delta = assembler.accept(event.data);
        if (delta !== 'done') yield* partsOf(delta);
      }
      if (chunk.done) {
        finishedReading = true;
        break;
      }
    }
    yield* partsOf(assembler.flush());
    yield { type: 'done', response: assembler.result() };
  } finally {
    if (!finishedReading) await reader.cancel().catch(() => undefined);
  }
}

function* partsOf(delta: ChunkDelta): Generator<LlmStreamPart> {
  if (delta.reasoning !== '') yield { type: 'reasoning_delta', content: delta.reasoning };
  if (delta.content !== '') yield { type: 'delta', content: delta.content };
  for (const toolDelta of delta.toolCalls) yield { type: 'tool_call_delta', ...toolDelta };
}

/** Maps a thrown fetch/read error to CANCELLED, LLM_TIMEOUT, LLM_UNAVAILABLE or (mid-body) LLM_BAD_RESPONSE. */
function classifyFailure(error: unknown, attempt: AttemptController, url: string, midBody = false): AgentError {
  if (AgentError.isInstance(error)) return error;
  if (attempt.timedOut) return timeoutError(url, attempt.waitedMs);
  if (attempt.signal.aborted || isAbortError(error)) return new AgentError('CANCELLED', 'the run was cancelled');
  if (midBody) {
    return new AgentError(
      'LLM_BAD_RESPONSE',
      `the connection to ${url} broke while the response was arriving (${messageOf(error)})`,
      {
        details: { url, cut: true, retryable: false },
      },
    );
  }
  return describeFetchFailure(error, url);
}

/** `<api_base>/chat/completions`, unless the base already ends with it. */
export function chatCompletionsUrl(apiBase: string): string {
  const trimmed = apiBase.replace(/\/+$/, '');
  return trimmed.endsWith('/chat/completions') ? trimmed : `${trimmed}/chat/completions`;
}

/** The URL without user:password, for messages. */
function withoutCredentials(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    parsed.search = '';
    return parsed.toString();
  } catch {
    return url;
  }
}

function requestHeaders(apiKey: string | undefined, stream: boolean): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: stream ? 'text/event-stream' : 'application/json',
  };
  if (apiKey !== undefined && apiKey !== '') headers.authorization = `Bearer ${apiKey}`;
  return headers;
}

/** The JSON body: only the fields that were given, plus stream options. */
export function requestBody(request: LlmRequest, stream: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = { messages: request.messages };
  const optional: (keyof LlmRequest)[] = [
    'model',
    'temperature',
    'max_tokens',
    'response_format',
    'tools',
    'tool_choice',
    'top_p',
    'stop',
    'seed',
    'presence_penalty',
    'frequency_penalty',
  ];
  for (const key of optional) if (request[key] !== undefined) body[key] = request[key];
  if (stream) {
    body.stream = true;
    body.stream_options = { include_usage: true };
  }
  return body;
}
