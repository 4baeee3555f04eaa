/**
 * The event stream of a run (SPEC §1.7). A run is an ordered list of events; every event has a
 * type, the run id, a per-run sequence number starting at 1, an ISO-8601 UTC timestamp with
 * milliseconds, and a data object. Events are inert JSON.
 */

export const EVENT_TYPES = [
  'run_start',
  'node_start',
  'node_end',
  'llm_request',
  'llm_response',
  'answer_chunk',
  'reflection_attempt',
  'thinking',
  'tool_start',
  'tool_result',
  'answer',
  'confirmation_request',
  'interrupt',
  'log',
  'error',
  'done',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export interface AgentEvent {
  type: EventType;
  run_id: string;
  seq: number;
  ts: string;
  /** The node that was running when the event happened, when there was one. */
  node?: string;
  data: Record<string, unknown>;
}

/** What an action hands to `context.emit`: the engine adds run_id, seq, ts and node. */
export type EmittedEvent = { type: EventType; data: Record<string, unknown> };

/** Final status of a run. */
export type RunStatus = 'running' | 'completed' | 'failed' | 'interrupted' | 'cancelled';

/**
 * Why a run ended: `completed` (reached __end__), `error`, `interrupt_before`, `interrupt_after`,
 * `confirmation`, `cancelled`, or a budget (`max_steps`, `max_llm_calls`, `max_tokens`,
 * `max_duration_ms`).
 */
export type StopReason =
  | 'completed'
  | 'error'
  | 'interrupt_before'
  | 'interrupt_after'
  | 'confirmation'
  | 'cancelled'
  | 'max_steps'
  | 'max_llm_calls'
  | 'max_tokens'
  | 'max_duration_ms';
