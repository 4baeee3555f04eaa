/**
 * What a durable host keeps of a run before each node of its main flow: the node checkpoint, and
 * the writes it is handed as (a base, then patches of what changed; checkpoint-codec.ts).
 */
import type { ResumeInfo } from '../core/action.js';
import type { RunLineage, RunOwner } from '../core/trace-store.js';

/**
 * Where a run stands before a node of its main flow: what a durable host keeps so that, if it dies
 * mid-run, it can continue from here (`continueFromNode` in resume-run.ts). The node named here is
 * the one about to run: a host that died while it ran runs it again. Inert JSON, sanitised.
 */
export interface NodeCheckpoint {
  run_id: string;
  agent: string;
  /** The node to run next. */
  node: string;
  /** True when this node's interrupt_before was already answered (a resumed pause). */
  skip_interrupt_before: boolean;
  /** The confirmation answer the node re-runs with, when it is a resumed tool confirmation. */
  resume?: ResumeInfo;
  state: Record<string, unknown>;
  /** The last event seq emitted before the node; a continued run numbers on from the log's last. */
  seq: number;
  usage: { steps: number; llm_calls: number; tokens: number; written_bytes?: number };
  memory: Record<string, unknown>;
  model_state: { scripted_calls: Record<string, number> };
  /** When the segment's duration budget started (epoch ms): max_duration_ms spans a restart. */
  budget_started_at: number;
  /** When max_duration_ms runs out (epoch ms), when the run has one. */
  deadline_at?: number;
  /** The run record's created_at. */
  run_created_at: string;
  /** The run it was started from (time travel). */
  lineage?: RunLineage;
  /** Who started the run (RunRecord.owner). */
  owner?: RunOwner;
}

/** A node checkpoint without its state and memory: small, written whole in every patch. */
export type CheckpointHead = Omit<NodeCheckpoint, 'state' | 'memory'>;

/** The top-level keys of a mapping that changed: their new values, and the keys that are gone. */
export interface KeyChanges {
  set: Record<string, unknown>;
  unset: string[];
}

/** A whole node checkpoint; the patches after it name its `base_id`. */
export interface CheckpointBase {
  kind: 'base';
  base_id: string;
  checkpoint: NodeCheckpoint;
}

/** The node checkpoint after patch `index - 1` (or the base, for 1) of base `base_id`, as a change. */
export interface CheckpointPatch {
  kind: 'patch';
  base_id: string;
  index: number;
  head: CheckpointHead;
  state: KeyChanges;
  memory: KeyChanges;
}

/** What a durable host stores before a node: a base replaces everything stored, a patch is appended. */
export type CheckpointWrite = CheckpointBase | CheckpointPatch;

