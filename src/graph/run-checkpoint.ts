/**
 * Checkpointing: what an interrupted run saves so that any host can resume it later (the state,
 * the pending interrupt, budget usage, memory, model-side state and the action's resume data),
 * saved through the run's one sanitiser; and the clean-up when a run ends without a pause.
 * A failed save is a storage failure of the run (trace-writer.ts decides what that means).
 */
import type { State } from '../core/action.js';
import type { Sanitizer } from '../events/outbound.js';
import type { Checkpoint, CheckpointStore, PendingInterrupt, RunLineage, RunOwner } from '../core/trace-store.js';
import { toPlainJson } from '../util/safe-json.js';
import type { BudgetUsage } from './run-budget.js';
import type { TraceWriter } from './trace-writer.js';

/** Everything of the run a checkpoint keeps. */
export interface PausedRun {
  runId: string;
  agent: string;
  node: string;
  position: 'before' | 'after';
  state: State;
  pending: PendingInterrupt;
  usage: BudgetUsage;
  memory: Map<string, unknown>;
  scriptedCalls: Map<string, number>;
  resumeData: Record<string, unknown> | undefined;
  lineage: RunLineage | undefined;
  owner: RunOwner | undefined;
  now: number;
}

/** A new checkpoint (its `seq` is set when the run's last event is known). */
export function makeCheckpoint(run: PausedRun): Checkpoint {
  return {
    checkpoint_id: crypto.randomUUID(),
    run_id: run.runId,
    agent: run.agent,
    node: run.node,
    position: run.position,
    state: structuredClone(run.state),
    pending: run.pending,
    seq: 0,
    usage: { ...run.usage },
    memory: Object.fromEntries(run.memory),
    model_state: { scripted_calls: Object.fromEntries(run.scriptedCalls) },
    ...(run.resumeData !== undefined
      ? { resume_data: toPlainJson(run.resumeData, 'resume data') as Record<string, unknown> }
      : {}),
    ...(run.lineage !== undefined ? { lineage: run.lineage } : {}),
    ...(run.owner !== undefined ? { owner: run.owner } : {}),
    created_at: new Date(run.now).toISOString(),
  };
}

export class Checkpointer {
  constructor(
    private readonly store: CheckpointStore | undefined,
    private readonly sanitizer: Sanitizer,
    private readonly trace: TraceWriter,
  ) {}

  async save(checkpoint: Checkpoint): Promise<void> {
    if (this.store === undefined) return;
    try {
      await this.store.save(this.sanitizer.value(checkpoint));
    } catch (caught) {
      this.trace.noteFailure(caught);
    }
  }

  /** A run that ended without a pause leaves no checkpoint behind (best effort). */
  async discard(runId: string): Promise<void> {
    await this.store?.delete(runId).catch(() => undefined);
  }
}
