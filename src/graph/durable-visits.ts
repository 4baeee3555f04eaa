/**
 * A run's side of surviving its host (RunOptions.durability, docs/execution-model.md "Checkpoints
 * and eviction"): the idempotency key of each node visit, side-effecting tool calls made at most
 * once per recorded result, and the node checkpoint saved before each node of the main flow.
 * Without durability only the keys exist (actions may still send them).
 */
import type { ResumeInfo, State } from '../core/action.js';
import { toAgentError } from '../core/agent-error.js';
import type { EventData } from '../core/events.js';
import { toPlainJson } from '../util/safe-json.js';
import type { BudgetUsage } from './run-budget.js';
import type { RunDurability } from './run-types.js';
import { CheckpointEncoder } from './checkpoint-codec.js';
import type { CheckpointHead } from './node-checkpoint.js';
import type { RunLineage, RunOwner } from '../core/trace-store.js';

/** Where the run stands before a node: what the node checkpoint is made of. */
export interface RunPosition {
  agent: string;
  node: string;
  skipInterruptBefore: boolean;
  resume: ResumeInfo | undefined;
  state: State;
  seq: number;
  usage: BudgetUsage;
  memory: Map<string, unknown>;
  scriptedCalls: Map<string, number>;
  budgetStartedAt: number;
  /** Milliseconds left of max_duration_ms (undefined: none). */
  remainingMs: number | undefined;
  now: number;
  runCreatedAt: string;
  lineage: RunLineage | undefined;
  owner: RunOwner | undefined;
}

/** The `tool` name of model calls in recorded-result keys (`run:node:step:model#1`). */
export const MODEL_CALL = 'model';

export class DurableVisits {
  /** The step count of the main flow's current node visit. */
  private step = 0;
  /** Tool calls made so far in the current visit, by visit key (numbers each call). */
  private readonly toolCalls = new Map<string, number>();
  /** Node checkpoints as bases and patches (one encoder per run segment). */
  private readonly encoder = new CheckpointEncoder();

  constructor(
    private readonly runId: string,
    readonly durability: RunDurability | undefined,
    private readonly log: (data: EventData<'log'>, node: string) => void,
  ) {}

  /** A main-flow node visit starts (`step`: the budget's step count, restored with a checkpoint). */
  beginVisit(step: number): void {
    this.step = step;
    this.toolCalls.clear();
  }

  /**
   * The idempotency key of a node visit, `run_id:node:step`: the same when the node runs again
   * after its host died, different for each visit of a node in a loop. Attempts of
   * `on_error: retry` share it.
   */
  idempotencyKey(node: string): string {
    return `${this.runId}:${node}:${this.step}`;
  }

  /**
   * Runs a side-effecting tool call (or a model call, `tool` = MODEL_CALL) at most once per
   * recorded result: with a durable host, a result recorded before the host died is handed back
   * instead of calling again (`replayed` is told, to charge budgets). The call's key is the visit's
   * key plus the tool and its call number in the visit.
   */
  async onceRecorded(
    node: string,
    tool: string,
    call: (key: string) => Promise<unknown>,
    replayed?: (value: unknown) => void,
  ): Promise<unknown> {
    const visit = this.idempotencyKey(node);
    const count = (this.toolCalls.get(visit) ?? 0) + 1;
    this.toolCalls.set(visit, count);
    const key = `${visit}:${tool}#${count}`;
    const durability = this.durability;
    if (durability === undefined) return call(key);
    const recorded = await storageStep(() => durability.recordedResult(key));
    if (recorded !== undefined) {
      const what =
        tool === MODEL_CALL ? 'model call not made again: its response' : `tool '${tool}' not called again: its result`;
      this.log(
        {
          source: 'durable',
          message: `${what} was recorded before the run's host restarted`,
          tool,
          idempotency_key: key,
        },
        node,
      );
      replayed?.(recorded.value);
      return recorded.value;
    }
    const value = await call(key);
    await storageStep(() => durability.recordResult(key, toPlainJson(value, `tool '${tool}' result`) ?? null));
    return value;
  }

  /**
   * Saves the node checkpoint, as a base or as the change since the last one (checkpoint-codec.ts),
   * copied by `sanitize`; a failure is the run's STORAGE_ERROR.
   */
  async save(position: RunPosition, sanitize: <T>(value: T) => T): Promise<void> {
    const durability = this.durability;
    if (durability === undefined) return;
    const encoded = this.encoder.encode(
      { head: checkpointHead(this.runId, position), state: position.state, memory: position.memory },
      sanitize,
    );
    await storageStep(() => durability.saveProgress(encoded.write));
    encoded.commit();
  }
}

function checkpointHead(runId: string, position: RunPosition): CheckpointHead {
  return {
    run_id: runId,
    agent: position.agent,
    node: position.node,
    skip_interrupt_before: position.skipInterruptBefore,
    ...(position.resume !== undefined ? { resume: toPlainJson(position.resume, 'resume data') as ResumeInfo } : {}),
    seq: position.seq,
    usage: { ...position.usage },
    model_state: { scripted_calls: Object.fromEntries(position.scriptedCalls) },
    budget_started_at: position.budgetStartedAt,
    ...(position.remainingMs !== undefined ? { deadline_at: position.now + position.remainingMs } : {}),
    run_created_at: position.runCreatedAt,
    ...(position.lineage !== undefined ? { lineage: position.lineage } : {}),
    ...(position.owner !== undefined ? { owner: position.owner } : {}),
  };
}

/** A durable host's storage step: its failure is the run's STORAGE_ERROR. */
async function storageStep<T>(step: () => T | Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    throw toAgentError(error, 'STORAGE_ERROR');
  }
}
