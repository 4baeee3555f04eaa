/**
 * A ModelProvider in Node that forwards each call to the real client running in another runtime
 * (workerd, Chromium) through a transport, so the conformance suite can run there unchanged.
 * Parts arrive as the far side produces them; an aborted signal is forwarded as an abort of the
 * far side's controller; stopping a stream early cancels the far side's stream.
 *
 * Two things do not cross, so remote runs skip those two cases: a `beforeRetry` hook that throws
 * cannot stop retries already under way on the far side (hooks are synchronous there), and parts
 * travel ahead of the consumer, so an abort between two parts reaches the far side after it may
 * have sent the rest (the abort of a call in flight is checked there instead).
 */
import { AgentError, type ErrorCode } from '../../../src/core/agent-error.js';
import type { LlmConnection, LlmStreamPart, ModelProvider } from '../../../src/core/model-provider.js';
import type { RemoteCall, RemoteLine } from './remote-runner.js';

export interface RemoteTransport {
  /** Starts a call on the far side; returning from the iteration early cancels it there. */
  open(call: RemoteCall): AsyncIterable<RemoteLine>;
  abort(id: string): Promise<void>;
}

let nextId = 0;

export function remoteProvider(
  transport: RemoteTransport,
  connection: LlmConnection & { api_base: string },
): ModelProvider {
  async function* lines(
    op: RemoteCall['op'],
    request: RemoteCall['request'],
    signal: AbortSignal | undefined,
  ): AsyncGenerator<RemoteLine> {
    const id = `call-${++nextId}`;
    const onAbort = (): void => void transport.abort(id);
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      yield* transport.open({ id, op, connection, request, aborted: signal?.aborted === true });
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }

  return {
    async generate(request, signal, hooks) {
      for await (const line of lines('generate', request, signal)) {
        if ('retry' in line) hooks?.beforeRetry?.(line.retry);
        else if ('error' in line) throw revive(line.error);
        else if ('result' in line) return line.result;
      }
      throw new Error('the far side ended without a result');
    },
    async *stream(request, signal, hooks): AsyncGenerator<LlmStreamPart> {
      for await (const line of lines('stream', request, signal)) {
        if ('retry' in line) hooks?.beforeRetry?.(line.retry);
        else if ('error' in line) throw revive(line.error);
        else if ('part' in line) yield line.part;
      }
    },
  };
}

/** The far side's error as it was: an AgentError only if it was one there. */
function revive(error: Extract<RemoteLine, { error: unknown }>['error']): Error {
  if (!error.typed) return new Error(error.message);
  return new AgentError(error.code as ErrorCode, error.message, { details: error.details ?? {} });
}

/** Splits a byte stream of newline-delimited JSON into values. */
export async function* ndjson(body: ReadableStream<Uint8Array>): AsyncGenerator<RemoteLine> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let newline: number;
      while ((newline = buffer.indexOf('\n')) !== -1) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        if (line !== '') yield JSON.parse(line) as RemoteLine;
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
