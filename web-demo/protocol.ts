/**
 * The messages between the page (app.ts) and the engine's Web Worker (engine-worker.ts). Every
 * message is plain structured-clone data. The page owns the worker: when a run does not stop on
 * `cancel` (a runaway script), the page terminates the worker and starts a new one.
 */
import type { AgentEvent } from '../src/events/event.js';
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
}

/** What a finished, paused or failed run hands back. */
export interface RunOutcome {
  run_id: string;
  status: string;
  stop_reason?: string;
  state?: Record<string, unknown>;
  error?: { code: string; message: string; node?: string };
}

/** What the capability probe found about a model endpoint (src/llm/probe.ts). */
export interface ProbeOutcome {
  ok: boolean;
  models: string[];
  capabilities: Record<string, unknown>;
  advice: string[];
  cors_error?: boolean;
  error?: string;
}

/** Page → worker. */
export type RequestMessage =
  | { type: 'validate'; request_id: number; agentYaml: string }
  | { type: 'run'; request_id: number; agentYaml: string; input: Record<string, unknown>; model: ModelSettings; run_id: string }
  | { type: 'resume'; request_id: number; agentYaml: string; run_id: string; approval?: { approved: boolean }; model: ModelSettings }
  | { type: 'cancel'; run_id: string }
  | { type: 'probe'; request_id: number; model: ModelSettings };

/** Worker → page. */
export type ResponseMessage =
  | { type: 'ready' }
  | { type: 'validated'; request_id: number; problems: AgentProblem[]; graph?: AgentGraph; agent?: string }
  | { type: 'event'; run_id: string; event: AgentEvent }
  | { type: 'finished'; request_id: number; outcome: RunOutcome }
  | { type: 'probed'; request_id: number; outcome: ProbeOutcome };
