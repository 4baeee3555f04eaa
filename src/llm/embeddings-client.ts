/**
 * OpenAI-compatible embeddings (`POST {api_base}/embeddings`, served by Ollama, LM Studio,
 * llama.cpp's server, vLLM and OpenAI), and the scripted model's offline embeddings.
 *
 * The HTTP path follows the chat client's rules: the same waits for a silent server (model-timeouts.ts: the first
 * byte, then between bytes), what a retry can cure (timeouts once at most, refused connections, 408/409/425/429,
 * 5xx but 501/505) retried up to `max_retries`, a capped body, every failure typed as
 * `LLM_HTTP_<status>`, `LLM_TIMEOUT`, `LLM_UNAVAILABLE` or `LLM_BAD_RESPONSE`.
 */
import { AgentError, isAbortError } from '../core/agent-error.js';
import { createAttemptController } from './attempt-controller.js';
import { describeFetchFailure } from './fetch-failure.js';
import { badResponse, httpError, isRetryable, serverReportedError, timeoutError } from './llm-errors.js';
import { serverErrorMessage } from './server-error.js';
import { DEFAULT_MAX_RETRIES, MAX_TIMEOUT_RETRIES } from './openai-client.js';
import { attemptTimeouts } from './model-timeouts.js';
import { DEFAULT_MAX_RESPONSE_BYTES, readCappedBody } from './read-capped-body.js';
import { DEFAULT_RETRY_TIMING, parseRetryAfter, retryDelay, sleep } from './retry.js';
import type { LlmConnection, TokenUsage } from '../core/model-provider.js';

export interface EmbeddingsResponse {
  /** One vector per input text, in input order. */
  embeddings: number[][];
  model: string;
  usage: TokenUsage;
}

/** How much of an error body is read to quote it. */
const ERROR_BODY_LIMIT = 64 * 1024;

/**
 * Asks an OpenAI-compatible server for embeddings of `input`.
 * @example
 * await requestEmbeddings({ api_base: 'http://localhost:11434/v1' }, 'nomic-embed-text', ['hello'], signal);
 */
export async function requestEmbeddings(
  connection: LlmConnection & { api_base: string },
  model: string | undefined,
  input: string[],
  signal: AbortSignal,
  onRetry?: (retry: { attempt: number; delay_ms: number; error: AgentError }) => void,
  /** The fetch to use (default: globalThis.fetch, looked up at call time; the probe passes its own). */
  fetchFunction?: typeof fetch,
): Promise<EmbeddingsResponse> {
  const url = embeddingsUrl(connection.api_base);
  const displayUrl = url.replace(/\/\/[^@/]*@/, '//');
  const { firstByteMs, idleMs } = attemptTimeouts(connection);
  const maxRetries = connection.max_retries ?? DEFAULT_MAX_RETRIES;
  const secrets = connection.api_key !== undefined && connection.api_key !== '' ? [connection.api_key] : [];
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (secrets.length > 0) headers.authorization = `Bearer ${connection.api_key}`;
  const body = JSON.stringify(model === undefined ? { input } : { model, input });

  let timeouts = 0;
  for (let attempt = 1; ; attempt++) {
    const controller = createAttemptController(signal, firstByteMs);
    try {
      let response: Response;
      try {
        response = await (fetchFunction ?? globalThis.fetch)(url, {
          method: 'POST',
          headers,
          body,
          signal: controller.signal,
        });
      } catch (error) {
        if (controller.timedOut) throw timeoutError(displayUrl, controller.waitedMs);
        if (signal.aborted || isAbortError(error)) throw new AgentError('CANCELLED', 'the run was cancelled');
        throw describeFetchFailure(error, displayUrl);
      }
      if (!response.ok) {
        const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'), Date.now());
        const error = httpError(
          response.status,
          displayUrl,
          await readCappedBody(response, ERROR_BODY_LIMIT).catch(() => ''),
          secrets,
        );
        if (retryAfterMs !== undefined) error.details.retry_after_ms = retryAfterMs;
        throw error;
      }
      const text = await readCappedBody(response, DEFAULT_MAX_RESPONSE_BYTES, () => controller.touch(idleMs)).catch(
        (error: unknown) => {
          if (AgentError.isInstance(error)) throw error;
          if (controller.timedOut) throw timeoutError(displayUrl, controller.waitedMs);
          throw badResponse(`the connection to ${displayUrl} broke while the embeddings were arriving`, {
            url: displayUrl,
            cut: true,
          });
        },
      );
      return parseEmbeddings(text, input.length, model, displayUrl, secrets);
    } catch (error) {
      if (signal.aborted)
        throw AgentError.isInstance(signal.reason)
          ? signal.reason
          : new AgentError('CANCELLED', 'the run was cancelled');
      if (!isRetryable(error) || attempt > maxRetries) throw error;
      const typed = error as AgentError;
      if (typed.code === 'LLM_TIMEOUT' && ++timeouts > MAX_TIMEOUT_RETRIES) throw error;
      const retryAfter = typeof typed.details.retry_after_ms === 'number' ? typed.details.retry_after_ms : undefined;
      const delay = retryDelay(attempt, retryAfter, DEFAULT_RETRY_TIMING);
      onRetry?.({ attempt: attempt + 1, delay_ms: delay, error: typed });
      await sleep(delay, signal);
    } finally {
      controller.dispose();
    }
  }
}

/** `<api_base>/embeddings`, unless the base already ends with it. */
export function embeddingsUrl(apiBase: string): string {
  const trimmed = apiBase.replace(/\/+$/, '');
  return trimmed.endsWith('/embeddings') ? trimmed : `${trimmed}/embeddings`;
}

/** Reads `{data: [{embedding, index}], model, usage}`; anything else is LLM_BAD_RESPONSE. */
function parseEmbeddings(
  text: string,
  expected: number,
  requestedModel: string | undefined,
  url: string,
  secrets: readonly string[],
): EmbeddingsResponse {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw badResponse(`the embeddings answer from ${url} is not JSON`, { url });
  }
  const data = (parsed as { data?: unknown })?.data;
  // A 200 that is only the server's error (LM Studio on a wrong path): its words, not "no vectors".
  const serverMessage = data === undefined ? serverErrorMessage(parsed) : undefined;
  if (serverMessage !== undefined)
    throw serverReportedError(serverMessage, `in place of embeddings at ${url}`, secrets);
  if (!Array.isArray(data) || data.length !== expected) {
    throw badResponse(
      `the embeddings answer from ${url} has ${Array.isArray(data) ? data.length : 'no'} vectors for ${expected} inputs`,
      { url },
    );
  }
  const embeddings: number[][] = new Array(expected);
  data.forEach((entry: unknown, position: number) => {
    const record = (entry ?? {}) as { embedding?: unknown; index?: unknown };
    const index = typeof record.index === 'number' && Number.isInteger(record.index) ? record.index : position;
    const vector = record.embedding;
    if (
      index < 0 ||
      index >= expected ||
      !Array.isArray(vector) ||
      vector.length === 0 ||
      !vector.every((value) => typeof value === 'number' && Number.isFinite(value))
    ) {
      throw badResponse(`the embeddings answer from ${url} has a malformed vector at position ${position}`, { url });
    }
    embeddings[index] = vector as number[];
  });
  if (embeddings.some((vector) => vector === undefined))
    throw badResponse(`the embeddings answer from ${url} repeats an index`, { url });
  const usage = (parsed as { usage?: Partial<TokenUsage> }).usage ?? {};
  const promptTokens = typeof usage.prompt_tokens === 'number' ? usage.prompt_tokens : 0;
  const model = (parsed as { model?: unknown }).model;
  return {
    embeddings,
    model: typeof model === 'string' && model !== '' ? model : (requestedModel ?? 'unknown'),
    usage: {
      prompt_tokens: promptTokens,
      completion_tokens: 0,
      total_tokens: typeof usage.total_tokens === 'number' ? usage.total_tokens : promptTokens,
    },
  };
}

/** Dimensions of the scripted model's embeddings. */
export const SCRIPTED_EMBEDDING_DIMENSIONS = 64;

/**
 * The scripted model's embeddings: a deterministic, offline bag of words. Each lower-cased word
 * (letters and digits) is hashed into one of 64 buckets with a sign, and the vector is scaled to
 * length 1. Texts that share words get a positive cosine similarity, so similarity-based agents
 * behave sensibly in tests and examples without a model. Not a semantic model: synonyms do not match.
 */
export function scriptedEmbeddings(input: string[]): EmbeddingsResponse {
  let tokens = 0;
  const embeddings = input.map((text) => {
    const vector = new Array<number>(SCRIPTED_EMBEDDING_DIMENSIONS).fill(0);
    const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
    tokens += words.length;
    for (const word of words) {
      const hash = fnv1a(word);
      vector[hash % SCRIPTED_EMBEDDING_DIMENSIONS]! += (hash >>> 16) & 1 ? 1 : -1;
    }
    const length = Math.hypot(...vector);
    return length === 0 ? vector : vector.map((value) => Math.round((value / length) * 1e6) / 1e6);
  });
  return {
    embeddings,
    model: 'scripted',
    usage: { prompt_tokens: tokens, completion_tokens: 0, total_tokens: tokens },
  };
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
