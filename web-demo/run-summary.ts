/**
 * Folds a run's events into what the run view shows. The same function serves a live run (one
 * event at a time) and a past run rebuilt from IndexedDB or an imported NDJSON file, so both
 * look the same.
 */
import type { AgentEvent, EventType } from '../src/core/events.js';
import { isPlainObject } from '../src/util/plain-object.js';

export interface ReflectionAttemptView {
  iteration: number;
  score: number | undefined;
  valid: boolean | undefined;
  errors: string[];
}

export interface ReactStepView {
  step: number;
  thought?: string;
  tool?: string;
  args?: unknown;
  observation?: unknown;
  answer?: unknown;
  autonomous?: boolean;
}

/** One model call as the live view shows it: waiting (with its retries), answered or failed. */
export interface ModelCallView {
  node?: string;
  label?: string;
  model?: string;
  provider?: string;
  /** When the request was sent (event timestamp, ISO). */
  started: string;
  /** `cancelled`: the run was cancelled during the call; `stopped`: the run ended with no answer. */
  state: 'waiting' | 'answered' | 'failed' | 'cancelled' | 'stopped';
  duration_ms?: number;
  attempts?: number;
  error?: RunErrorView;
  /** Characters of streamed answer received so far (a streaming call). */
  received?: number;
  /** Each retry announced by the engine: when, after which error, and how long it waits. */
  retries: { attempt: number; delay_ms: number; code: string; at: string }[];
}

export interface RunErrorView {
  code: string;
  message: string;
  node?: string;
  field?: string;
}

export interface RunSummary {
  run_id: string;
  agent: string;
  status: string;
  stop_reason?: string;
  current_node?: string;
  visited: string[];
  /** Why the run failed or was cancelled (the `done` event's error, else the fatal error event). */
  error?: RunErrorView;
  /** The node the run failed in, and the one that was running when it was cancelled. */
  failed_node?: string;
  cancelled_node?: string;
  calls: ModelCallView[];
  /**
   * The calls of `calls` still waiting, oldest first: the reducers find the call an event belongs
   * to here, not by scanning every call (a 10,000-event run has thousands).
   */
  waiting: ModelCallView[];
  /** Streamed text per model call, newest last. */
  streams: { node?: string; text: string }[];
  attempts: ReflectionAttemptView[];
  steps: ReactStepView[];
  confirmation?: { tool: string; arguments: unknown; node?: string };
  /** Where a paused run waits (its `interrupt`), until it goes on or ends. */
  pause?: { node: string; position: 'before' | 'after' };
  errors: RunErrorView[];
  logs: string[];
  llm_calls: number;
  final_state?: Record<string, unknown>;
  event_count: number;
  /** Every event so far, in order (the timeline and the raw event list read them). */
  events: AgentEvent[];
}

/** An empty summary for a run that has not sent events yet. */
export function emptySummary(runId = '', agent = ''): RunSummary {
  return {
    run_id: runId,
    agent,
    status: 'running',
    visited: [],
    calls: [],
    waiting: [],
    streams: [],
    attempts: [],
    steps: [],
    errors: [],
    logs: [],
    llm_calls: 0,
    event_count: 0,
    events: [],
  };
}

/**
 * Applies one event to the summary (mutating it) and returns it. Each field is read under its one
 * name (src/core/events.ts); traces stored by older versions are upgraded once when loaded
 * (`upgradeEvent`), not guessed at here. Values are still checked before use: an imported file
 * is untrusted JSON, and an event over the size cap has its data replaced by a summary.
 */
export function applyEvent(summary: RunSummary, event: AgentEvent): RunSummary {
  summary.event_count++;
  summary.events.push(event);
  if (summary.run_id === '') summary.run_id = event.run_id;
  (APPLY[event.type] as Apply<EventType>)(summary, event);
  return summary;
}

type Apply<T extends EventType> = (summary: RunSummary, event: AgentEvent<T>) => void;

/** Events the summary does not fold (the timeline and the action views read them). */
const nothing = (): void => undefined;

/** One reducer per event type: a new event type does not compile until it has one here. */
const APPLY: { [T in EventType]: Apply<T> } = {
  run_start(summary, event) {
    summary.agent = text(event.data.agent) ?? summary.agent;
    summary.status = 'running';
  },
  node_start(summary, event) {
    // A sub-run's nodes (agent files run by agent.*) are not visits of this graph's nodes.
    if (event.node !== undefined && event.sub_run === undefined) {
      summary.current_node = event.node;
      summary.visited.push(event.node);
      summary.pause = undefined;
    }
  },
  node_end: nothing,
  llm_request(summary, event) {
    const node = event.node;
    const label = text(event.data.label);
    const model = text(event.data.model);
    const provider = text(event.data.provider);
    summary.llm_calls++;
    summary.streams.push({ ...(node !== undefined ? { node } : {}), text: '' });
    const call: ModelCallView = {
      ...(node !== undefined ? { node } : {}),
      ...(label !== undefined ? { label } : {}),
      ...(model !== undefined ? { model } : {}),
      ...(provider !== undefined ? { provider } : {}),
      started: event.ts,
      state: 'waiting',
      retries: [],
    };
    summary.calls.push(call);
    summary.waiting.push(call);
  },
  llm_response(summary, event) {
    const data = event.data;
    const call = waitingCall(summary, event.node, text(data.label));
    if (!call) return;
    summary.waiting.splice(summary.waiting.lastIndexOf(call), 1);
    const error = errorView(data.error);
    call.state = error === undefined ? 'answered' : error.code === 'CANCELLED' ? 'cancelled' : 'failed';
    if (error) call.error = error;
    const duration = number(data.duration_ms);
    if (duration !== undefined) call.duration_ms = duration;
    const attempts = number(data.attempts);
    if (attempts !== undefined) call.attempts = attempts;
  },
  answer_chunk(summary, event) {
    const content = text(event.data.content) ?? '';
    if (summary.streams.length === 0) summary.streams.push({ text: '' });
    summary.streams[summary.streams.length - 1]!.text += content;
    // A streaming call is not "waiting": it says how much has arrived.
    const call = waitingCall(summary, event.node, text(event.data.label));
    if (call) call.received = (call.received ?? 0) + content.length;
  },
  reflection_attempt(summary, event) {
    const data = event.data;
    summary.attempts.push({
      iteration: number(data.iteration) ?? summary.attempts.length + 1,
      score: number(data.score),
      valid: typeof data.valid === 'boolean' ? data.valid : undefined,
      errors: errorTexts(data.errors, number(data.error_count)),
    });
  },
  thinking(summary, event) {
    summary.steps.push({
      step: number(event.data.step) ?? summary.steps.length + 1,
      thought: text(event.data.thought) ?? '',
    });
  },
  tool_start(summary, event) {
    const data = event.data;
    const step = currentStep(summary, number(data.step));
    step.tool = text(data.tool);
    step.args = data.arguments;
    if (typeof data.autonomous === 'boolean') step.autonomous = data.autonomous;
  },
  tool_result(summary, event) {
    const step = currentStep(summary, number(event.data.step));
    step.tool ??= text(event.data.tool);
    step.observation = event.data.observation;
  },
  answer(summary, event) {
    currentStep(summary, number(event.data.step)).answer = event.data.answer;
  },
  confirmation_request(summary, event) {
    summary.confirmation = {
      tool: text(event.data.tool) ?? 'tool',
      arguments: event.data.arguments,
      ...(event.node !== undefined ? { node: event.node } : {}),
    };
  },
  // The `done` that follows carries the status (interrupted); this says where it waits.
  interrupt(summary, event) {
    const node = event.node ?? text(event.data.node);
    if (node !== undefined && event.sub_run === undefined)
      summary.pause = { node, position: event.data.position === 'after' ? 'after' : 'before' };
  },
  error(summary, event) {
    const error = errorView(event.data, event.node) ?? { code: 'ERROR', message: '' };
    // The engine reports a node's error, then the same error again as the run's end (fatal).
    if (!summary.errors.some((known) => sameError(known, error))) summary.errors.push(error);
    if (event.data.fatal === true) summary.error = error;
  },
  log(summary, event) {
    const data = event.data;
    summary.logs.push(text(data.message) ?? JSON.stringify(data));
    // The model caller announces each retry with the attempt, the wait before it and the error.
    if (data.source !== 'model') return;
    const call = waitingCall(summary, event.node, text(data.label));
    const attempt = number(data.attempt);
    const delay = number(data.delay_ms);
    if (call && attempt !== undefined && delay !== undefined)
      call.retries.push({ attempt, delay_ms: delay, code: errorView(data.error)?.code ?? 'ERROR', at: event.ts });
  },
  done(summary, event) {
    const data = event.data;
    endRun(summary, {
      status: text(data.status) ?? summary.status,
      stop_reason: text(data.stop_reason),
      error: errorView(data.error),
    });
    if (isPlainObject(data.state)) summary.final_state = data.state;
  },
};

/**
 * Ends the run in the summary: status, stop reason, the error, and which node failed or was
 * cancelled (the error's node, else the node that was running). Used for the `done` event and
 * when the page had to stop the worker itself (no `done` came).
 */
export function endRun(
  summary: RunSummary,
  end: { status: string; stop_reason?: string | undefined; error?: RunErrorView | undefined },
): RunSummary {
  summary.status = end.status;
  summary.stop_reason = end.stop_reason;
  if (end.error)
    summary.error = {
      ...end.error,
      ...((end.error.node ?? summary.error?.node) ? { node: end.error.node ?? summary.error?.node } : {}),
    };
  if (end.error && !summary.errors.some((known) => sameError(known, end.error!))) summary.errors.push(summary.error!);
  const where = summary.error?.node ?? summary.current_node;
  if (summary.status === 'failed' && where !== undefined) summary.failed_node = where;
  if (summary.status === 'cancelled') {
    const running = summary.current_node ?? summary.error?.node;
    if (running !== undefined) summary.cancelled_node = running;
  }
  if (summary.status !== 'interrupted') {
    summary.confirmation = undefined;
    summary.pause = undefined;
  }
  const unanswered = summary.status === 'cancelled' ? 'cancelled' : 'stopped';
  if (summary.status !== 'running') {
    for (const call of summary.calls) if (call.state === 'waiting') call.state = unanswered;
    summary.waiting = [];
  }
  summary.current_node = undefined;
  return summary;
}

/** Model calls that failed (an error answer, or stopped by the run's end). */
export function failedCalls(summary: RunSummary): ModelCallView[] {
  return summary.calls.filter((call) => call.state === 'failed' || call.state === 'stopped');
}

/** Builds the summary of a whole list of events. */
export function summarize(events: AgentEvent[]): RunSummary {
  const summary = emptySummary();
  for (const event of events) applyEvent(summary, event);
  return summary;
}

/** The newest call still waiting, preferably from the same node and label (parallel branches). */
function waitingCall(
  summary: RunSummary,
  node: string | undefined,
  label: string | undefined,
): ModelCallView | undefined {
  const waiting = summary.waiting;
  return (
    findLast(waiting, (call) => call.node === node && call.label === label) ??
    findLast(waiting, (call) => call.node === node) ??
    waiting.at(-1)
  );
}

function findLast<T>(list: readonly T[], test: (value: T) => boolean): T | undefined {
  for (let index = list.length - 1; index >= 0; index--) if (test(list[index]!)) return list[index];
  return undefined;
}

function errorView(value: unknown, eventNode?: string): RunErrorView | undefined {
  if (!isPlainObject(value)) return undefined;
  const code = text(value.code);
  const message = text(value.message);
  if (code === undefined && message === undefined) return undefined;
  const node = text(value.node) ?? eventNode;
  const field = text(value.field);
  return {
    code: code ?? 'ERROR',
    message: message ?? '',
    ...(node !== undefined ? { node } : {}),
    ...(field !== undefined ? { field } : {}),
  };
}

function sameError(a: RunErrorView, b: RunErrorView): boolean {
  return (
    a.code === b.code && a.message === b.message && (a.node === undefined || b.node === undefined || a.node === b.node)
  );
}

/** The step an event belongs to: the last one when it has that number (or the event none), else a new one. */
function currentStep(summary: RunSummary, stepNumber: number | undefined): ReactStepView {
  const last = summary.steps[summary.steps.length - 1];
  if (last !== undefined && (stepNumber === undefined || last.step === stepNumber)) return last;
  const step: ReactStepView = { step: stepNumber ?? summary.steps.length + 1 };
  summary.steps.push(step);
  return step;
}

/** The attempt's errors (the event carries the first ten and the count of all). */
function errorTexts(errors: unknown, count: number | undefined): string[] {
  const listed = Array.isArray(errors)
    ? errors.map((error) => {
        if (!isPlainObject(error)) return String(error);
        const path = text(error.path);
        const message = text(error.message) ?? JSON.stringify(error);
        return path ? `${path}: ${message}` : message;
      })
    : [];
  if (count !== undefined && count > listed.length)
    listed.push(`${count - listed.length} more error${count - listed.length === 1 ? '' : 's'}`);
  return listed;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function number(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}
