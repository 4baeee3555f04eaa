/**
 * Answers a request with a run: the final result as JSON, or every event as Server-Sent Events
 * (`event: <type>`, `data: <the event as JSON>`, `id: <seq>`), each written as it happens, the
 * engine's `done` event last. A client that goes away mid-stream cancels the run: its model call
 * is aborted and the engine records the run as cancelled (the host keeps the isolate alive for
 * that write through `waitUntil`). workerd notices a client has gone only when it next writes, so a
 * quiet stream (a slow model call) gets a comment line every `heartbeatMs`; that write is what
 * turns a disconnect into `request.signal` aborting (with the `enable_request_signal` flag) and
 * the stream being cancelled.
 *
 * A resume that fails before the run starts (unknown run, finished run, a claim lost to another
 * resumer, storage down) is a request error with a status from error-status.ts, not a run result.
 * A run that failed is answered as JSON with the status of its error (`statusOfRun`); over SSE the
 * status is 200 (sent before the outcome is known) and the `done` event says `status: "failed"`.
 * Every SSE `data:` line goes through the host's sanitiser, like every JSON body (app.ts).
 */
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { AgentEvent } from '../src/core/events.js';
import type { AgentRun, RunResult } from '../src/graph/run-types.js';
import type { Sanitizer } from '../src/events/outbound.js';
import { errorJsonResponse, statusOfRun } from './error-status.js';

export interface RunResponseOptions {
  stream: boolean;
  /** Keeps the host alive until the promise settles (Workers' `ctx.waitUntil`). */
  waitUntil: (promise: Promise<unknown>) => void;
  /** Milliseconds between SSE comment lines while a run is quiet (0: none). */
  heartbeatMs: number;
  /** Redacts the host's secrets from every SSE event written. */
  sanitizer: Sanitizer;
}

/** Codes that mean the run never started: answered as request errors. */
const NOT_STARTED = new Set(['NOT_FOUND', 'CONFLICT', 'INVALID_PARAMS', 'STORAGE_ERROR', 'INTERNAL']);

/** The JSON body of a run result. */
export function resultBody(result: RunResult): Record<string, unknown> {
  const body: Record<string, unknown> = {
    run_id: result.run_id,
    status: result.status,
    stop_reason: result.stop_reason,
    state: result.state,
  };
  if (result.error !== undefined) body.error = result.error;
  if (result.interrupt !== undefined) body.interrupt = result.interrupt;
  return body;
}

export async function respondWithRun(c: Context, run: AgentRun, options: RunResponseOptions): Promise<Response> {
  options.waitUntil(run.result);
  const events = run[Symbol.asyncIterator]();
  const first = await events.next();
  if (first.done === true) {
    const result = await run.result;
    if (result.error !== undefined && NOT_STARTED.has(result.error.code)) {
      return errorJsonResponse(result.error);
    }
    return c.json(resultBody(result), statusOfRun(result) as never);
  }
  if (!options.stream) {
    for (let step = await events.next(); step.done !== true; step = await events.next()) {
      // Drained so the engine's channel never holds a finished run's events.
    }
    const result = await run.result;
    return c.json(resultBody(result), statusOfRun(result) as never);
  }
  return streamSSE(c, async (stream) => {
    stream.onAbort(() => run.cancel('the client disconnected'));
    const heartbeat =
      options.heartbeatMs > 0
        ? setInterval(() => void stream.write(': keep-alive\n\n'), options.heartbeatMs)
        : undefined;
    const send = (event: AgentEvent) =>
      stream.writeSSE({
        event: event.type,
        data: options.sanitizer.text(JSON.stringify(event)),
        id: String(event.seq),
      });
    await send(first.value);
    for (let step = await events.next(); step.done !== true; step = await events.next()) {
      if (!stream.aborted) await send(step.value);
    }
    if (heartbeat !== undefined) clearInterval(heartbeat);
    await run.result;
  });
}
