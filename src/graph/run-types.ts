/** Options and results of a run (the engine's public run API). */
import type { AgentErrorJson } from '../core/agent-error.js';
import type { AgentEvent, RunStatus, StopReason } from '../core/events.js';
import type { LlmProviderFactory } from '../core/model-provider.js';
import type { LimitsSpec } from '../spec/agent-spec.js';
import type { CheckpointStore, PendingInterrupt, RunOwner, TraceStore } from '../core/trace-store.js';
import type { FileStore } from '../core/file-store.js';
import type { AgentFileSource } from './agent-files.js';
import type { CheckpointWrite } from './node-checkpoint.js';

export interface LlmOverrides {
  api_base?: string;
  model?: string;
  api_key?: string;
  provider?: string;
}

export interface RunOptions {
  /** Run id (default: a random UUID). */
  runId?: string;
  llm?: { providerFactory?: LlmProviderFactory; overrides?: LlmOverrides };
  traceStore?: TraceStore;
  checkpointStore?: CheckpointStore;
  /** Cancels the run and its in-flight model call. */
  signal?: AbortSignal;
  /** The caller's role, for tool permissions. */
  role?: string;
  /**
   * Who starts the run (a host with bearer tokens): kept on its record and checkpoints, so the host
   * can let only them, or a role it names, fork or resume it. A resumed run keeps its checkpoint's.
   */
  owner?: RunOwner;
  /** Values templates see as `secrets` (and that are redacted from events and traces). */
  secrets?: Record<string, string>;
  /** An allow-listed environment object templates see as `env`. */
  env?: Record<string, string>;
  /** Tighter limits than the agent's (each the minimum of both; a server's ceilings). */
  limits?: Partial<LimitsSpec>;
  /**
   * The operator's own budgets (the CLI's `--max-llm-calls`): each replaces the agent's value and
   * the default, still under `limits` and the host ceilings (see run-budget.ts).
   */
  limitOverrides?: Partial<LimitsSpec>;
  /** Keep model request/response text in events (default: settings.trace.capture_payloads). */
  capturePayloads?: boolean;
  /** Clock, for tests. */
  now?: () => number;
  /**
   * The host's turn-taking (`hostYield()` made once and given to every run of a server): runs that
   * share it share one budget of work between turns of the event loop, so N busy runs hold it for
   * one budget, not N. Default: each run its own.
   */
  breathe?: () => Promise<void>;
  /** The host's file root for file.read / file.write; without it they are refused (src/core/file-store.ts). */
  files?: FileStore;
  /** Where agent.* finds agent files to run as sub-runs (src/graph/agent-files.ts); without it they are refused. */
  agentFiles?: AgentFileSource;
  /**
   * The run's own agent file as a path of `agentFiles` (`triage.yaml`): the folder its sub-agents
   * are looked up in, and the start of the chain that refuses cycles. Default: the root itself.
   */
  agentFile?: string;
  /**
   * A durable host's hooks (the run coordinator, `tea-edge serve`): a node checkpoint before every
   * node of the main flow, and the journal of side-effecting tool results (see RunDurability).
   */
  durability?: RunDurability;
}

export type { NodeCheckpoint } from './node-checkpoint.js';

/**
 * What a host that survives its own death gives a run. Guarantees (docs/execution-model.md
 * "Checkpoints and eviction"): each node runs at least once; a side-effecting action called
 * through `callAction` (a tool) whose result was recorded is not run again when its node re-runs.
 */
export interface RunDurability {
  /**
   * Saves the checkpoint before a node; the events before it were appended to the trace store
   * first. A failure fails the run (STORAGE_ERROR). The first write of a segment is a whole
   * checkpoint (a base: it replaces what the host kept); the next are patches holding what changed,
   * to keep after it, until the next base (checkpoint-codec.ts; `decodeCheckpoint` reads them back).
   */
  saveProgress(write: CheckpointWrite): Promise<void> | void;
  /** The recorded result of a tool call, by its idempotency key (undefined: none recorded). */
  recordedResult(key: string): Promise<{ value: unknown } | undefined> | { value: unknown } | undefined;
  /** Records a tool call's result before the run goes on. */
  recordResult(key: string, value: unknown): Promise<void> | void;
}

export interface ResumeInput {
  state_update?: Record<string, unknown>;
  approval?: { approved: boolean; [key: string]: unknown };
  /**
   * The pause this resume answers (`interrupt.checkpoint_id` of the result that paused). When
   * given, the resume is CONFLICT unless that pause is the run's latest and unclaimed, so a
   * request that arrives after another resume continued the run never resumes its next pause.
   * Without it, a resume continues whichever pause is the latest.
   */
  checkpoint_id?: string;
}

export interface RunResult {
  run_id: string;
  status: RunStatus;
  stop_reason: StopReason;
  state: Record<string, unknown>;
  error?: AgentErrorJson;
  /** What the run waits for, when interrupted. */
  interrupt?: PendingInterrupt & { checkpoint_id: string };
}

/** A started run: iterate it for events; await `result` for the outcome. */
export interface AgentRun extends AsyncIterable<AgentEvent> {
  readonly runId: string;
  readonly result: Promise<RunResult>;
  cancel(reason?: string): void;
}
