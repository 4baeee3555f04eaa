/**
 * The far side of a remote ModelProvider (see remote-provider.ts): bundled into a workerd module
 * worker or a Chromium page, it runs the real OpenAI-compatible client there and reports each
 * call as lines: stream parts, retries announced by the client, the result or the error. Nothing
 * here is a stand-in: the client, its fetch, timers, streams and AbortSignal are the runtime's own.
 */
import { AgentError } from '../../../src/core/agent-error.js';
import { createOpenAiClient } from '../../../src/llm/openai-client.js';
import type {
  LlmCallHooks,
  LlmConnection,
  LlmRequest,
  LlmResponse,
  LlmStreamPart,
} from '../../../src/core/model-provider.js';

export interface RemoteCall {
  id: string;
  op: 'generate' | 'stream';
  connection: LlmConnection & { api_base: string };
  request: LlmRequest;
  /** The caller's signal was already aborted: the client gets an aborted signal too. */
  aborted: boolean;
}

export type RemoteRetry = Parameters<NonNullable<LlmCallHooks['beforeRetry']>>[0];

export type RemoteLine =
  | { part: LlmStreamPart }
  | { retry: RemoteRetry }
  | { result: LlmResponse }
  | { error: { typed: boolean; code?: string; message: string; details?: Record<string, unknown> } };

const FAST_RETRIES = { baseDelayMs: 5, maxDelayMs: 20, retryAfterCapMs: 50 };
/** Calls asked to abort. Plain data: workerd lets no request touch another's I/O objects, so the call aborts itself. */
const abortRequested = new Set<string>();
const ABORT_POLL_MS = 5;

/** Asks a call in flight to abort (the caller's signal aborted). */
export function abortCall(id: string): void {
  abortRequested.add(id);
}

/** Runs one call; stopping the iteration early stops the client's stream too. */
export async function* runCall(call: RemoteCall): AsyncGenerator<RemoteLine> {
  const controller = new AbortController();
  if (call.aborted) controller.abort();
  const watch = setInterval(() => {
    if (abortRequested.delete(call.id)) controller.abort();
  }, ABORT_POLL_MS);
  const retries: RemoteLine[] = [];
  const hooks: LlmCallHooks = { beforeRetry: (retry) => void retries.push({ retry }) };
  const client = createOpenAiClient(call.connection, { retryTiming: FAST_RETRIES });
  try {
    if (call.op === 'generate') {
      const result = await client.generate(call.request, controller.signal, hooks);
      yield* retries.splice(0);
      yield { result };
      return;
    }
    for await (const part of client.stream(call.request, controller.signal, hooks)) {
      yield* retries.splice(0);
      yield { part };
    }
  } catch (error) {
    yield* retries.splice(0);
    yield { error: describeError(error) };
  } finally {
    clearInterval(watch);
    abortRequested.delete(call.id);
  }
}

function describeError(error: unknown): Extract<RemoteLine, { error: unknown }>['error'] {
  if (AgentError.isInstance(error))
    return { typed: true, code: error.code, message: error.message, details: error.details };
  return { typed: false, message: error instanceof Error ? error.message : String(error) };
}
