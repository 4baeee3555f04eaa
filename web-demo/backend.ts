/**
 * A back-end that runs agents somewhere else than this tab (a tea-edge server). The page keeps
 * one run view and one flow: it asks the back-end to start, resume, follow or cancel, and gets
 * the run's events and its outcome, the same as from the engine worker.
 */
import type { AgentEvent } from '../src/core/events.js';
import type { RunOutcome } from './protocol.js';

/** What a resume carries: a tool call's approval, or keys to merge into the state at the pause. */
export interface ResumeUpdate {
  approval?: { approved: boolean };
  state_update?: Record<string, unknown>;
}

export type EventSink = (runId: string, event: AgentEvent) => void;

export interface RemoteBackend {
  /** What the run view's status line says about where the run goes. */
  label: string;
  /** Starts a run of the chosen agent; `begin` is told the run id as soon as the server gave it. */
  run(input: Record<string, unknown>, begin: (runId: string) => void, onEvent: EventSink): Promise<RunOutcome>;
  /** Resumes an interrupted run (with a tool approval, or the state changed) and follows it from the seq after `after`. */
  resume(runId: string, update: ResumeUpdate, after: number, onEvent: EventSink): Promise<RunOutcome>;
  /** Follows a run still going (opened from history) from the seq after `after`. */
  follow(runId: string, after: number, onEvent: EventSink): Promise<RunOutcome>;
  cancel(runId: string): void;
  /** Time travel: a new run continuing after `node` of `parentRunId`, from `state`. */
  runFrom(
    parentRunId: string,
    node: string,
    state: Record<string, unknown>,
    begin: (runId: string) => void,
    onEvent: EventSink,
  ): Promise<RunOutcome>;
}
