/** Options and results of a run (the engine's public run API). */
import type { AgentErrorJson } from '../errors/agent-error.js';
import type { AgentEvent, RunStatus, StopReason } from '../events/event.js';
import type { LlmProviderFactory } from '../llm/types.js';
import type { LimitsSpec } from '../spec/agent-spec.js';
import type { CheckpointStore, PendingInterrupt, TraceStore } from '../storage/trace-store.js';
import type { FileStore } from '../core/file-store.js';
import type { AgentFileSource } from './agent-files.js';

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
  /** The host's file root for file.read / file.write; without it they are refused (src/core/file-store.ts). */
  files?: FileStore;
  /** Where agent.* finds agent files to run as sub-runs (src/graph/agent-files.ts); without it they are refused. */
  agentFiles?: AgentFileSource;
  /**
   * The run's own agent file as a path of `agentFiles` (`triage.yaml`): the folder its sub-agents
   * are looked up in, and the start of the chain that refuses cycles. Default: the root itself.
   */
  agentFile?: string;
}

export interface ResumeInput {
  state_update?: Record<string, unknown>;
  approval?: { approved: boolean; [key: string]: unknown };
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
