/**
 * Folds a run's events into what the run view shows. The same function serves a live run (one
 * event at a time) and a past run rebuilt from IndexedDB or an imported NDJSON file, so both
 * look the same.
 */
import type { AgentEvent } from '../src/events/event.js';

export interface ReflectionAttemptView {
  iteration: number;
  score: number | undefined;
  valid: boolean | undefined;
  errors: string[];
  output: unknown;
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

export interface RunSummary {
  run_id: string;
  agent: string;
  status: string;
  stop_reason?: string;
  current_node?: string;
  visited: string[];
  /** Streamed text per model call, newest last. */
  streams: { node?: string; text: string }[];
  attempts: ReflectionAttemptView[];
  steps: ReactStepView[];
  confirmation?: { tool: string; arguments: unknown; node?: string };
  errors: { code: string; message: string; node?: string }[];
  logs: string[];
  llm_calls: number;
  final_state?: Record<string, unknown>;
  event_count: number;
}

/** An empty summary for a run that has not sent events yet. */
export function emptySummary(runId = '', agent = ''): RunSummary {
  return { run_id: runId, agent, status: 'running', visited: [], streams: [], attempts: [], steps: [], errors: [], logs: [], llm_calls: 0, event_count: 0 };
}

/** Applies one event to the summary (mutating it) and returns it. */
export function applyEvent(summary: RunSummary, event: AgentEvent): RunSummary {
  const data = event.data ?? {};
  summary.event_count++;
  if (summary.run_id === '') summary.run_id = event.run_id;
  switch (event.type) {
    case 'run_start':
      summary.agent = text(data.agent) ?? summary.agent;
      summary.status = 'running';
      break;
    case 'node_start':
      if (event.node !== undefined) {
        summary.current_node = event.node;
        summary.visited.push(event.node);
      }
      break;
    case 'llm_request':
      summary.llm_calls++;
      summary.streams.push({ ...(event.node !== undefined ? { node: event.node } : {}), text: '' });
      break;
    case 'answer_chunk': {
      const chunk = text(data.content) ?? text(data.chunk) ?? text(data.delta) ?? '';
      if (summary.streams.length === 0) summary.streams.push({ text: '' });
      summary.streams[summary.streams.length - 1]!.text += chunk;
      break;
    }
    case 'reflection_attempt':
      summary.attempts.push({
        iteration: number(data.iteration) ?? summary.attempts.length + 1,
        score: number(data.score),
        valid: typeof data.valid === 'boolean' ? data.valid : undefined,
        errors: errorTexts(data.errors, number(data.error_count)),
        output: data.output,
      });
      break;
    case 'thinking':
      summary.steps.push({ step: number(data.step) ?? summary.steps.length + 1, thought: text(data.thought) ?? text(data.content) ?? '' });
      break;
    case 'tool_start': {
      const step = currentStep(summary, data);
      step.tool = text(data.tool) ?? text(data.name) ?? text(data.action);
      step.args = data.arguments ?? data.args ?? data.action_input ?? data.input;
      if (typeof data.autonomous === 'boolean') step.autonomous = data.autonomous;
      break;
    }
    case 'tool_result': {
      const step = currentStep(summary, data);
      step.tool ??= text(data.tool) ?? text(data.name);
      step.observation = data.observation ?? data.result ?? data.output;
      break;
    }
    case 'answer':
      currentStep(summary, data).answer = data.answer ?? data.content ?? data.final_answer;
      break;
    case 'confirmation_request':
      summary.confirmation = {
        tool: text(data.tool) ?? text(data.name) ?? 'tool',
        arguments: data.arguments ?? data.args ?? data.action_input,
        ...(event.node !== undefined ? { node: event.node } : {}),
      };
      break;
    case 'error':
      summary.errors.push({
        code: text(data.code) ?? 'ERROR',
        message: text(data.message) ?? '',
        ...(text(data.node) ?? event.node ? { node: text(data.node) ?? event.node } : {}),
      });
      break;
    case 'log':
      summary.logs.push(text(data.message) ?? JSON.stringify(data));
      break;
    case 'done':
      summary.status = text(data.status) ?? summary.status;
      summary.stop_reason = text(data.stop_reason);
      if (isRecord(data.state)) summary.final_state = data.state;
      if (summary.status !== 'interrupted') summary.confirmation = undefined;
      summary.current_node = undefined;
      break;
    default:
      break;
  }
  return summary;
}

/** Builds the summary of a whole list of events. */
export function summarize(events: AgentEvent[]): RunSummary {
  const summary = emptySummary();
  for (const event of events) applyEvent(summary, event);
  return summary;
}

function currentStep(summary: RunSummary, data: Record<string, unknown>): ReactStepView {
  const stepNumber = number(data.step);
  const last = summary.steps[summary.steps.length - 1];
  if (last !== undefined && (stepNumber === undefined || last.step === stepNumber)) return last;
  const step: ReactStepView = { step: stepNumber ?? summary.steps.length + 1 };
  summary.steps.push(step);
  return step;
}

function errorTexts(errors: unknown, count: number | undefined): string[] {
  if (Array.isArray(errors)) {
    return errors.map((error) => {
      if (isRecord(error)) {
        const path = text(error.path) ?? text(error.dotted_path);
        const message = text(error.message) ?? JSON.stringify(error);
        return path ? `${path}: ${message}` : message;
      }
      return String(error);
    });
  }
  return count !== undefined && count > 0 ? [`${count} error${count === 1 ? '' : 's'}`] : [];
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function number(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
