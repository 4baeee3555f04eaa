/**
 * Runs that outlive their request (the run coordinator on Cloudflare, the process on Node): driving
 * a run to its end whoever listens, and answering the request that started or resumed it in the
 * way it asked: `async` (202 at once), `json` (the result once the run stops) or `sse` (the
 * segment's events, followed from the run's log). A start or resume that never began (a lost claim,
 * an unknown run) is answered as a request error, never as a 202 or a run result.
 */
import type { AgentEvent } from '../src/core/events.js';
import type { Sanitizer } from '../src/events/outbound.js';
import { toAgentError } from '../src/core/agent-error.js';
import type { AgentRun, RunResult } from '../src/graph/run-types.js';
import { errorJsonResponse, statusOfRun } from './error-status.js';
import { resultBody } from './respond-with-run.js';

export type RespondMode = 'async' | 'json' | 'sse';

/** How a client asks: `Prefer: respond-async` wins, then `Accept: text/event-stream`, else JSON. */
export function respondModeOf(headers: Headers): RespondMode {
  const prefer = (headers.get('prefer') ?? '').toLowerCase();
  if (prefer.split(/[,;]/).some((token) => token.trim() === 'respond-async')) return 'async';
  return (headers.get('accept') ?? '').includes('text/event-stream') ? 'sse' : 'json';
}

/** `?cancel_on_disconnect=1` (or `true`): a foreground stream's client leaving cancels the run. */
export function cancelOnDisconnectOf(url: string): boolean {
  const flag = new URL(url).searchParams.get('cancel_on_disconnect');
  return flag === '1' || flag === 'true';
}

export interface ActiveRun {
  run: AgentRun;
  /** Settles when every event was handed to `onEvent` and the result is known. */
  finished: Promise<RunResult>;
  /** Events the run produced (0: it never started). */
  events: number;
}

/** Reads a run to its end, handing each event to `onEvent`; `finished` never rejects. */
export function driveRun(run: AgentRun, onEvent: (event: AgentEvent) => void): ActiveRun {
  const active: ActiveRun = { run, events: 0, finished: Promise.resolve(undefined as never) };
  active.finished = (async () => {
    for await (const event of run) {
      active.events++;
      onEvent(event);
    }
    return run.result;
  })().catch((error) => ({
    run_id: run.runId,
    status: 'failed' as const,
    stop_reason: 'error' as const,
    state: {},
    error: toAgentError(error, 'INTERNAL').toJSON(),
  }));
  return active;
}

/** Codes that mean a start or resume never began: answered as request errors. */
const NOT_STARTED = new Set(['NOT_FOUND', 'CONFLICT', 'INVALID_PARAMS', 'STORAGE_ERROR', 'INTERNAL']);

/** A run's result as JSON with its status (error-status.ts), or the request error when it never began. */
export function resultResponse(
  result: RunResult,
  active: ActiveRun,
  sanitizer: Sanitizer,
  status = statusOfRun(result),
): Response {
  if (active.events === 0 && result.error !== undefined && NOT_STARTED.has(result.error.code))
    return errorJsonResponse(result.error);
  return new Response(sanitizer.text(JSON.stringify(resultBody(result))), {
    status,
    headers: { 'content-type': 'application/json' },
  });
}

export interface AnswerOptions {
  mode: RespondMode;
  runId: string;
  sanitizer: Sanitizer;
  /** The SSE answer (the segment's events); used in `sse` mode. */
  follow: () => Response;
}

export async function answerRun(active: ActiveRun, options: AnswerOptions): Promise<Response> {
  if (options.mode === 'sse') return options.follow();
  if (options.mode === 'async') {
    // A run refused before it began settles within the current turn: still a request error.
    const early = await Promise.race([active.finished, new Promise<undefined>((resolve) => setTimeout(resolve, 0))]);
    if (early !== undefined && active.events === 0) return resultResponse(early, active, options.sanitizer);
    const headers = { location: `/runs/${encodeURIComponent(options.runId)}`, 'preference-applied': 'respond-async' };
    return Response.json({ run_id: options.runId, status: 'running' }, { status: 202, headers });
  }
  return resultResponse(await active.finished, active, options.sanitizer);
}
