/**
 * The messages between the page (app.ts) and the engine's Web Worker (engine-worker.ts). Every
 * message is plain structured-clone data. The page owns the worker: when a run does not stop on
 * `cancel` (a runaway script), the page terminates the worker and starts a new one.
 */
import type { AgentEvent } from '../src/core/events.js';
import type { ModelSettings } from './model-settings.js';
import type { AgentGraph } from './agent-graph.js';

/** The IndexedDB database the demo keeps its runs in (worker and page open the same one). */
export const DATABASE_NAME = 'tea-edge-web-demo';

/** One problem found in an agent file, placed at its line and column when known. */
export interface AgentProblem {
  code: string;
  message: string;
  line?: number;
  column?: number;
  node?: string;
  field?: string;
}

/** What a finished, paused or failed run hands back. */
export interface RunOutcome {
  run_id: string;
  status: string;
  stop_reason?: string;
  state?: Record<string, unknown>;
  error?: { code: string; message: string; node?: string };
}

/**
 * Why a model server could not be used, as far as a browser can tell: nothing listening (even a
 * `no-cors` request fails), up but refusing this page (the `no-cors` request gets an opaque
 * answer while the normal one is refused), or up and answering an HTTP error.
 */
export type ProbeDiagnosis = 'ok' | 'down' | 'cors' | 'http_error';

/** The one chat completion the probe sends, and what came back. */
export interface ChatProbe {
  ok: boolean;
  model?: string;
  /** The HTTP status, when the server answered. */
  status?: number;
  /** The start of the answer body (capped), for an HTTP error. */
  body?: string;
  /** Why the request failed, when there was no answer or it was not a chat completion. */
  error?: string;
}

/** What the capability probe found about a model endpoint (src/llm/probe.ts). */
export interface ProbeOutcome {
  ok: boolean;
  models: string[];
  capabilities: Record<string, unknown>;
  advice: string[];
  cors_error?: boolean;
  error?: string;
  diagnosis?: ProbeDiagnosis;
  chat?: ChatProbe;
}

/** Agent files a run may run as sub-runs (agent.* with `{file: …}`): file name → YAML text (the bundled examples). */
export type AgentFiles = Record<string, string>;

/** Pauses set on the studio's graph for a run in the tab, by node name (like `interrupt:` in the file). */
export interface RunPauses {
  before: string[];
  after: string[];
}

/** Page → worker. */
export type RequestMessage =
  | { type: 'validate'; request_id: number; agentYaml: string }
  | {
      type: 'run';
      request_id: number;
      agentYaml: string;
      input: Record<string, unknown>;
      model: ModelSettings;
      run_id: string;
      agentFiles?: AgentFiles;
      pauses?: RunPauses;
    }
  /** `state_update`: merged into the state before the run goes on (a pause edited in the studio). */
  | {
      type: 'resume';
      request_id: number;
      agentYaml: string;
      run_id: string;
      approval?: { approved: boolean };
      state_update?: Record<string, unknown>;
      model: ModelSettings;
      agentFiles?: AgentFiles;
      pauses?: RunPauses;
    }
  | { type: 'cancel'; run_id: string }
  /** Time travel: a new run `run_id` that continues after `node` of `parent_run_id` from `state`. */
  | {
      type: 'fork';
      request_id: number;
      agentYaml: string;
      run_id: string;
      parent_run_id: string;
      node: string;
      state: Record<string, unknown>;
      model: ModelSettings;
    }
  | { type: 'probe'; request_id: number; model: ModelSettings };

/** Worker → page. */
export type ResponseMessage =
  | { type: 'ready' }
  | { type: 'validated'; request_id: number; problems: AgentProblem[]; graph?: AgentGraph; agent?: string }
  | { type: 'event'; run_id: string; event: AgentEvent }
  | { type: 'finished'; request_id: number; outcome: RunOutcome }
  | { type: 'probed'; request_id: number; outcome: ProbeOutcome };
