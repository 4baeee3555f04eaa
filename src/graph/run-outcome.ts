/**
 * How a run ended (Outcome), and what follows from it: the stop reason and the `done` event's data.
 * Every run ends with exactly one `done` event and a RunResult with a status and a stop reason.
 */
import { toAgentError, type AgentError } from '../core/agent-error.js';
import type { DoneData, StopReason } from '../core/events.js';
import type { Checkpoint, PendingInterrupt } from '../core/trace-store.js';
import { budgetOf } from './run-budget.js';
import type { RunResult } from './run-types.js';

export type Outcome =
  | { status: 'completed' }
  | { status: 'failed' | 'cancelled'; error: AgentError; stopReason: StopReason }
  | { status: 'interrupted'; pending: PendingInterrupt; checkpoint: Checkpoint };

/**
 * The outcome of a run that threw. An aborted signal decides first: its reason (`aborted`) is a
 * host cancel (status cancelled) or the duration budget (status failed, stop reason
 * max_duration_ms), whatever the interrupted call threw on its way out.
 */
export function failureOutcome(error: unknown, aborted: AgentError | undefined): Outcome {
  const thrown = toAgentError(error, 'INTERNAL');
  const agentError =
    aborted === undefined
      ? thrown
      : toAgentError(aborted, 'CANCELLED', thrown.node !== undefined ? { node: thrown.node } : {});
  const budget = budgetOf(agentError);
  if (budget !== undefined) return { status: 'failed', error: agentError, stopReason: budget };
  if (agentError.code === 'CANCELLED') return { status: 'cancelled', error: agentError, stopReason: 'cancelled' };
  return { status: 'failed', error: agentError, stopReason: 'error' };
}

export function stopReasonOf(outcome: Outcome): StopReason {
  if (outcome.status === 'completed') return 'completed';
  if (outcome.status !== 'interrupted') return outcome.stopReason;
  if (outcome.pending.kind === 'tool_confirmation') return 'confirmation';
  return outcome.pending.position === 'before' ? 'interrupt_before' : 'interrupt_after';
}

export function doneData(result: RunResult): DoneData {
  return {
    status: result.status,
    stop_reason: result.stop_reason,
    state: result.state,
    ...(result.error !== undefined ? { error: result.error } : {}),
    ...(result.interrupt !== undefined ? { interrupt: result.interrupt } : {}),
  };
}
