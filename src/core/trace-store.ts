/**
 * The TraceStore and CheckpointStore seams (docs/spec.md#7-storage-traces-and-checkpoints). Small interfaces implemented by
 * adapters (in-memory, file directory, IndexedDB, Workers KV, Deno KV), all passing the shared
 * conformance suite in tests/conformance/. Any back-end failure surfaces as an AgentError with
 * code STORAGE_ERROR and the back-end's reason; a run never reports success while a trace write
 * failed.
 */
import type { AgentErrorJson } from './agent-error.js';
import type { AgentEvent, PendingInterrupt, RunStatus } from './events.js';

export type { PendingInterrupt } from './events.js';

/** One run as listed: what it is, where it stands, when it changed. */
export interface RunRecord {
  run_id: string;
  agent: string;
  status: RunStatus;
  stop_reason?: string;
  created_at: string;
  updated_at: string;
  error?: AgentErrorJson;
  /** Number of events stored for the run, when the store knows it. */
  event_count?: number;
  /** What the run used, written with the record of its end: model calls and tokens (the run budget's count, across resumes). */
  usage?: { llm_calls: number; tokens: number };
  /** The models its calls went to (the `llm_request` events' `model`), in first-use order, across resumes. */
  models?: string[];
  /** Time travel: the run this one was started from, and the node it continued after. */
  parent_run_id?: string;
  forked_after?: string;
  /** Who started the run, on a host with bearer tokens: only they (or a role the host names) may fork or resume it. */
  owner?: RunOwner;
}

/**
 * The caller that started a run, from its bearer token: the token's role, and `caller`, a
 * fingerprint of the token (the first 16 hex digits of its SHA-256; never the token itself).
 */
export interface RunOwner {
  role: string;
  caller: string;
}

/** Where a run started from another's node (time travel): kept on its records and checkpoints. */
export interface RunLineage {
  parent_run_id: string;
  forked_after: string;
}

export interface ListRunsOptions {
  /** Only runs of this agent. */
  agent?: string;
  /** Page size (default 50, at most 1000). */
  limit?: number;
  /** Opaque cursor from a previous page. */
  cursor?: string;
}

export interface RunPage {
  runs: RunRecord[];
  /** Present when more runs follow. */
  cursor?: string;
}

export interface RetentionPolicy {
  /** Keep at most this many runs (newest kept). */
  maxRuns?: number;
  /** Delete runs whose updated_at is older than this many milliseconds. */
  maxAgeMs?: number;
}

/** A learned insight kept by the run reviewer (docs/spec.md#54-run-review-the-reflector-seed-002 learn_from_episode). */
export type Insight = Record<string, unknown>;

export interface TraceStore {
  /** Appends events (in seq order) to a run's trace. May buffer; `flush` makes them durable. */
  appendEvents(runId: string, events: AgentEvent[]): Promise<void>;
  /** Makes everything appended so far durable; rejects with STORAGE_ERROR on failure. */
  flush(runId: string): Promise<void>;
  /** The run's events in seq order (empty for an unknown run). */
  readEvents(runId: string): Promise<AgentEvent[]>;
  /** Creates or replaces the run record. */
  putRun(record: RunRecord): Promise<void>;
  getRun(runId: string): Promise<RunRecord | undefined>;
  /** Runs newest first (by created_at, then run_id), paged. */
  listRuns(options?: ListRunsOptions): Promise<RunPage>;
  /** Deletes the run record and its events; unknown runs are not an error. */
  deleteRun(runId: string): Promise<void>;
  /** Applies a retention policy; returns how many runs were deleted. */
  applyRetention(policy: RetentionPolicy): Promise<number>;
  /** Insights the reviewer learned for an agent, oldest first. */
  getInsights(agent: string): Promise<Insight[]>;
  /** Replaces the insights for an agent. */
  putInsights(agent: string, insights: Insight[]): Promise<void>;
}

/** Everything needed to continue a paused run in a later process. Inert JSON. */
export interface Checkpoint {
  checkpoint_id: string;
  run_id: string;
  agent: string;
  /** The node to continue at, and whether it re-runs (`before`) or is done (`after`). */
  node: string;
  position: 'before' | 'after';
  state: Record<string, unknown>;
  pending: PendingInterrupt;
  /** Last event seq written before the pause; the resumed run continues from seq + 1. */
  seq: number;
  /** Budget counters spent so far (steps, llm_calls, tokens). */
  usage: { steps: number; llm_calls: number; tokens: number; written_bytes?: number };
  /** Run-scoped memory (memory.store) and action-private resume data (e.g. a ReAct loop). */
  memory: Record<string, unknown>;
  resume_data?: Record<string, unknown>;
  /** Model-side state to carry over (calls made per scripted script, so a list is not restarted). */
  model_state?: { scripted_calls?: Record<string, number> };
  /** A run started from another's node carries the link through every pause. */
  lineage?: RunLineage;
  /** Who started the run (RunRecord.owner), carried through every pause. */
  owner?: RunOwner;
  created_at: string;
}

export interface CheckpointStore {
  save(checkpoint: Checkpoint): Promise<void>;
  /** The newest checkpoint of the run, or undefined. */
  loadLatest(runId: string): Promise<Checkpoint | undefined>;
  delete(runId: string): Promise<void>;
  /**
   * Claims a checkpoint for one resumer: resolves true for exactly one caller per checkpoint id
   * (as far as the back-end allows; see the adapter's notes on eventual consistency).
   */
  claim(runId: string, checkpointId: string): Promise<boolean>;
}
