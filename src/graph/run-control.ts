/**
 * What can stop a run from outside its nodes: the host's cancel (and its AbortSignal) and the
 * max_duration_ms deadline. Both abort one signal, which every model call, tool call, Lua call and
 * retry sleep of the run listens to; `abortError` says why it was aborted.
 */
import { AgentError } from '../core/agent-error.js';
import { durationExceeded, type RunBudget } from './run-budget.js';

export class RunControl {
  private readonly controller = new AbortController();
  private durationTimer: ReturnType<typeof setTimeout> | undefined;
  /** The node of the main flow being run, named by the duration error. */
  activeNode: string | undefined;

  constructor(hostSignal: AbortSignal | undefined) {
    if (hostSignal === undefined) return;
    if (hostSignal.aborted) this.controller.abort(hostSignal.reason);
    else hostSignal.addEventListener('abort', () => this.controller.abort(hostSignal.reason), { once: true });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  cancel(reason = 'cancelled by the host'): void {
    if (!this.controller.signal.aborted) this.controller.abort(new AgentError('CANCELLED', reason));
  }

  /**
   * max_duration_ms is a deadline, not only a check between nodes: when it passes, the run's signal
   * is aborted, which ends the model call, tool call or retry sleep in flight.
   */
  armDeadline(budget: RunBudget): void {
    const remaining = budget.remainingMs();
    if (remaining === undefined) return;
    const limit = budget.limits.max_duration_ms!;
    this.durationTimer = setTimeout(
      () => {
        if (!this.controller.signal.aborted) this.controller.abort(durationExceeded(limit, this.activeNode));
      },
      Math.max(0, remaining),
    );
  }

  disarm(): void {
    clearTimeout(this.durationTimer);
  }

  /** Why the run's signal was aborted (a host cancel or a budget), when it was. */
  abortError(): AgentError | undefined {
    const signal = this.controller.signal;
    if (!signal.aborted) return undefined;
    return AgentError.isInstance(signal.reason) ? signal.reason : new AgentError('CANCELLED', 'the run was cancelled');
  }
}
