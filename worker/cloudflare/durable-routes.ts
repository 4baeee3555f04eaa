/**
 * The worker's side of Durable Object runs (Cloudflare, when the RUNS binding is present): the run
 * routes (worker/run-routes.ts) over a host that hands each run to its coordinator object
 * (worker/cloudflare/run-coordinator.ts), named by the run id, after the app's guards (Origin,
 * Host, tokens, body limit) ran:
 *
 *   POST /agents/:name/runs   starts the run in a new object. `Prefer: respond-async` answers 202
 *                             `{run_id, status: "running"}` with `Location: /runs/:id` at once and
 *                             the run goes on without the client; `Accept: text/event-stream`
 *                             streams it; otherwise the result as JSON. A client leaving a stream
 *                             cancels the run only with `?cancel_on_disconnect=1`.
 *   POST /runs/:id/resume     the same three ways; the object lets exactly one resume claim a pause.
 *   POST /runs/:id/cancel     stops a running run; answers its result (status `cancelled`).
 *   POST /runs/:id/fork       time travel: a new run, in its own object, paused after `node` of run
 *                             :id with `state` (resume it to run from there).
 *   GET  /runs/:id/events     NDJSON of the stored events after `?after=<seq>`; with
 *                             `Accept: text/event-stream`, the events after `Last-Event-ID` (or
 *                             `?after=`) and then the live ones until the run stops.
 *
 * `durableTraceStore` gives the app's other routes (GET /runs/:id, /review) the object's record and
 * events, and Workers KV for what spans runs (the listing, insights, retention).
 */
import type { AgentEvent } from '../../src/core/events.js';
import type { RunRecord, TraceStore } from '../../src/core/trace-store.js';
import type { AppOptions } from '../app.js';
import { httpError } from '../error-status.js';
import { MAX_RUN_ID, runRoutes, type RunCall } from '../run-routes.js';

/** The part of a Durable Object namespace binding the worker uses. */
export interface DurableObjectNamespaceLike {
  idFromName(name: string): unknown;
  get(id: never): { fetch(input: string, init?: RequestInit): Promise<Response> };
}

function coordinator(namespace: DurableObjectNamespaceLike, runId: string) {
  if (runId.length === 0 || runId.length > MAX_RUN_ID)
    throw httpError('NOT_FOUND', `no run '${runId.slice(0, MAX_RUN_ID)}'`);
  return namespace.get(namespace.idFromName(runId) as never);
}

function forwardBody(call: RunCall, runId: string) {
  return { run_id: runId, respond: call.mode, cancel_on_disconnect: call.cancelOnDisconnect, ...call.caller };
}

/** The object's answer with mutable headers (the app's CORS middleware adds to them). */
function passOn(response: Response): Response {
  return new Response(response.body, response);
}

async function post(
  namespace: DurableObjectNamespaceLike,
  runId: string,
  path: string,
  body: unknown,
): Promise<Response> {
  return passOn(
    await coordinator(namespace, runId).fetch(`https://run-coordinator${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
  );
}

/** The run routes (worker/run-routes.ts) with each run in its own coordinator object. */
export function durableRoutes(namespace: DurableObjectNamespaceLike): NonNullable<AppOptions['routes']> {
  return runRoutes(() => ({
    start(call, { name, input }) {
      const runId = crypto.randomUUID();
      return post(namespace, runId, '/start', { ...forwardBody(call, runId), agent: name, input });
    },
    resume: (call, runId, resume) => post(namespace, runId, '/resume', { ...forwardBody(call, runId), resume }),
    cancel: (runId) => post(namespace, runId, '/cancel', {}),
    // Time travel: the new run lives in its own object, like any run (the app's route would write
    // its checkpoint to KV, where no object looks).
    fork({ parent, node, state, owner }) {
      const runId = crypto.randomUUID();
      return post(namespace, runId, '/fork', {
        run_id: runId,
        parent_run_id: parent.run_id,
        agent: parent.agent,
        node,
        state,
        ...(owner !== undefined ? { owner } : {}),
      });
    },
    async events(_c, runId, after, follow) {
      const headers = { accept: follow ? 'text/event-stream' : 'application/x-ndjson' };
      return passOn(
        await coordinator(namespace, runId).fetch(`https://run-coordinator/events?after=${after}`, { headers }),
      );
    },
  }));
}

/**
 * The app's trace store with Durable Object runs: a run's record and events come from its object
 * (strongly consistent); listing, insights and retention from the KV index.
 */
export function durableTraceStore(namespace: DurableObjectNamespaceLike, index: TraceStore): TraceStore {
  return {
    appendEvents: (runId, events) => index.appendEvents(runId, events),
    flush: (runId) => index.flush(runId),
    putRun: (record) => index.putRun(record),
    listRuns: (options) => index.listRuns(options),
    applyRetention: (policy) => index.applyRetention(policy),
    getInsights: (agent) => index.getInsights(agent),
    putInsights: (agent, insights) => index.putInsights(agent, insights),
    async getRun(runId) {
      const response = await coordinator(namespace, runId).fetch('https://run-coordinator/record');
      if (response.status === 404) return undefined;
      return (await response.json()) as RunRecord;
    },
    async readEvents(runId) {
      const response = await coordinator(namespace, runId).fetch('https://run-coordinator/events');
      if (response.status === 404) return [];
      const text = await response.text();
      return text
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as AgentEvent);
    },
    async deleteRun(runId) {
      await coordinator(namespace, runId).fetch(`https://run-coordinator/delete?run_id=${encodeURIComponent(runId)}`, {
        method: 'POST',
      });
      await index.deleteRun(runId);
    },
  };
}
