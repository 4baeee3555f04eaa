/**
 * The events contract: every event a run emits, as one discriminated union on `type`, and the
 * fields each type carries (the table in docs/execution-model.md lists them; a test checks the two
 * agree). This module is part of the contracts layer: it imports nothing else from `src/`.
 *
 * One field name per concept, whatever the emitter:
 * - a tool's output is `observation` (text) and its outcome `status` (`ok`, `error`, …);
 * - an error carried inside an event is `error: {code, message, node?}`; the `error` event's data
 *   is itself such an error (plus `attempt` / `fatal`);
 * - a duration is `duration_ms`; a model call's label is `label`; a ReAct step is `step`, a tool
 *   round of `llm.call` is `round`; a tool call's id is `call_id`.
 *
 * Typing only: nothing here runs per event. `emit` is generic over the type, so a wrong field does
 * not compile; events read back from a store are the same union (see `upgradeEvent` for traces
 * written before these names were settled).
 */
import type { AgentErrorJson } from './agent-error.js';
import type { TokenUsage } from './model-provider.js';

/** Every event type, in the order a run usually emits them. */
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

/** Final status of a run. */
export type RunStatus = 'running' | 'completed' | 'failed' | 'interrupted' | 'cancelled';

/**
 * Why a run ended: `completed` (reached __end__), `error`, `interrupt_before`, `interrupt_after`,
 * `confirmation`, `cancelled`, or a budget (`max_steps`, `max_llm_calls`, `max_tokens`,
 * `max_duration_ms`, `max_write_bytes`).
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
  | 'max_duration_ms'
  | 'max_write_bytes';

/**
 * An error as events carry it: the JSON of an AgentError (text `message`, the place as `file`,
 * `line`, `column`, `node`, `field`), its code as a string (an event read back may come from
 * another version of the list).
 */
export type EventError = Omit<AgentErrorJson, 'code'> & { code: string };

/** What a paused run waits for. */
export type PendingInterrupt =
  | { kind: 'interrupt'; node: string; position: 'before' | 'after' }
  | {
      kind: 'tool_confirmation';
      node: string;
      tool: string;
      arguments: unknown;
      call_id: string;
      description?: string;
    };

/** Token counts of a model call (the one definition is the ModelProvider seam's). */
export type { TokenUsage } from './model-provider.js';

/** How a tool call ended, for `tool_result` (the ReAct loop uses every value; `llm.call` tools `ok`, `error`, `unknown`, `invalid`). */
export type ToolCallStatus =
  | 'ok'
  | 'error'
  | 'unknown'
  | 'denied'
  | 'invalid'
  | 'repeated'
  | 'limit'
  | 'duplicate_id'
  | 'user_denied';

/** A request as payload capture records it (redacted, message text capped). */
export type CapturedRequest = {
  messages: Array<{ role: string; content: string | null; tool_calls?: unknown; tool_call_id?: string; name?: string }>;
  model?: unknown;
  temperature?: unknown;
  max_tokens?: unknown;
  response_format?: unknown;
  tools?: unknown;
  tool_choice?: unknown;
};

/** A response as payload capture records it. */
export type CapturedResponse = {
  content: string;
  /** The model's thinking (reasoning field or `<think>` blocks), when it gave any. */
  reasoning?: string;
  finish_reason: string | null;
  usage: TokenUsage;
  tool_calls?: unknown;
};

export type RunStartData = { agent: string; input: unknown };

/** `attempt` only from the second attempt of a node retried by `on_error: retry`. */
export type NodeStartData = { attempt?: number };

export type NodeEndData = { update: Record<string, unknown>; duration_ms: number };

/** A chat call, or (`kind: 'embeddings'`) an `llm.embed` call with `input_count` texts. */
export type LlmRequestData = Exclusive<
  | {
      model: string;
      provider: string;
      message_count: number;
      stream: boolean;
      label?: string;
      /** What the call is for within its action (`judge (attempt 2)`, `ReAct step 4`, `synthesis`…). */
      purpose?: string;
      tool_count?: number;
      /** Only with payload capture. */
      request?: CapturedRequest;
    }
  | { kind: 'embeddings'; model: string; provider: string; input_count: number; label?: string }
>;

type KeysOf<T> = T extends unknown ? keyof T : never;

/**
 * A union whose members list each other's fields as absent (`?: undefined`), so a reader can read
 * any field of the type without narrowing first, and an emitter still cannot mix two members.
 */
type Exclusive<T, K extends PropertyKey = KeysOf<T>> = T extends unknown
  ? T & { [P in Exclude<K, keyof T>]?: undefined }
  : never;

type LlmResponseCommon = { model: string; duration_ms: number; attempts: number; label?: string };

/** A model call that answered. `truncated` marks an answer cut by max_tokens (finish_reason `length`). */
export type LlmAnsweredData = LlmResponseCommon & {
  usage: TokenUsage;
  finish_reason: string | null;
  tool_call_count?: number;
  /** The tool calls were read from the answer's text, written in this format (the server did not parse them). */
  tool_calls_from_text?: string;
  /** Characters of thinking the model gave (its text is in `response.reasoning` with payload capture). */
  reasoning_chars?: number;
  truncated?: true;
  /** Only with payload capture. */
  response?: CapturedResponse;
};

/** An embeddings call that answered: `dimensions` of each vector. */
export type LlmEmbeddedData = LlmResponseCommon & { kind: 'embeddings'; usage: TokenUsage; dimensions: number };

/** A model call that failed after its attempts (`kind: 'embeddings'` for `llm.embed`). */
export type LlmFailedData = LlmResponseCommon & { error: { code: string; message: string }; kind?: 'embeddings' };

export type LlmResponseData = Exclusive<LlmAnsweredData | LlmEmbeddedData | LlmFailedData>;

/** Streamed text: `label` for a labelled model call, `step` for a ReAct final answer. */
export type AnswerChunkData = { content: string; label?: string; step?: number };

export type ReflectionAttemptData = {
  iteration: number;
  max_iterations: number;
  score: number;
  valid: boolean;
  error_count: number;
  /** The first ten errors. */
  errors: Array<{ message: string; path?: string; type?: string }>;
  source: 'generator' | 'corrector';
};

export type ThinkingData = { step: number; thought: string };

/** A ReAct step's tool call (`step`, `tier`, `autonomous`) or an `llm.call` tool round (`round`, `action`). */
export type ToolStartData = Exclusive<
  | { tool: string; arguments: unknown; call_id: string; step: number; tier: number; autonomous: boolean }
  | { tool: string; arguments: unknown; call_id: string; round: number; action: string | null }
>;

/** The observation is the text the model sees next. */
export type ToolResultData = Exclusive<
  | { tool: string; call_id: string; status: ToolCallStatus; observation: string; step: number }
  | { tool: string; call_id: string; status: ToolCallStatus; observation: string; round: number }
>;

export type AnswerData = { step: number; answer: unknown };

/** `description`: what the tool does, as shown to the approver (an MCP tool's comes from its server, capped). */
export type ConfirmationRequestData = { tool: string; arguments: unknown; call_id: string; description?: string };

export type InterruptData = {
  checkpoint_id: string;
  node: string;
  position: 'before' | 'after';
  pending: PendingInterrupt;
};

/** A log line; `source` says who wrote it. */
export type LogData = Exclusive<
  /** A line an inline script printed (Lua `print`, Prolog `write`/`format`, Python `print`). */
  | { source: 'lua' | 'prolog' | 'python'; message: string }
  | {
      source: 'model';
      message: string;
      attempt: number;
      delay_ms: number;
      error: { code: string; message: string };
      label?: string;
    }
  | {
      source: 'trace';
      level: 'warn';
      message: string;
      truncated: true;
      dropped_from_seq: number;
      max_events: number;
      max_bytes: number;
    }
  | {
      source: 'while_loop';
      message: string;
      iterations_completed: number;
      exit_reason: 'max_iterations_reached' | 'condition_false';
    }
  | { source: 'dynamic_parallel'; message: string; total_branches: number; successful: number; failed: number }
  | { source: 'retry_loop'; message: string; retry: number; errors: number }
  | { source: 'sub_run'; message: string; agent: string; file: string; status: 'started' | 'completed' | 'failed' }
  | { source: 'durable'; message: string; resumed_at?: string; tool?: string; idempotency_key?: string }
  /** The answer to a tool confirmation, when a paused run is resumed: which call, yes or no, and the resumer's role. */
  | { source: 'approval'; message: string; tool: string; call_id: string; approved: boolean; role: string }
>;

/**
 * A failure. `attempt`: the node attempt that failed (node errors); `fatal`: the error that ends
 * the run (emitted once, before `done`); `stop_reason`: a ReAct loop that hit its own limit.
 */
export type ErrorData = EventError & { attempt?: number; fatal?: true; stop_reason?: string };

export type DoneData = {
  status: RunStatus;
  stop_reason: StopReason;
  state: Record<string, unknown>;
  error?: EventError;
  interrupt?: PendingInterrupt & { checkpoint_id: string };
};

/** The data of each event type. */
export type EventDataMap = {
  run_start: RunStartData;
  node_start: NodeStartData;
  node_end: NodeEndData;
  llm_request: LlmRequestData;
  llm_response: LlmResponseData;
  answer_chunk: AnswerChunkData;
  reflection_attempt: ReflectionAttemptData;
  thinking: ThinkingData;
  tool_start: ToolStartData;
  tool_result: ToolResultData;
  answer: AnswerData;
  confirmation_request: ConfirmationRequestData;
  interrupt: InterruptData;
  log: LogData;
  error: ErrorData;
  done: DoneData;
};

export type EventData<T extends EventType> = EventDataMap[T];

/**
 * What stands for a value too large for an event (src/events/redact.ts). A field of `data` larger
 * than the cap on its own (a `done`'s state, a `node_end`'s update) is replaced by it and the other
 * fields are kept; when the data is over the cap without such a field and cutting its strings is
 * not enough, `data` itself is replaced and every field of the type is then missing.
 */
export type TruncatedEventData = { truncated: true; original_bytes: number; preview: string };

/** The data as read: the type's fields, or the truncation summary with all of them undefined. */
export type StoredEventData<T extends EventType> =
  | EventData<T>
  | (TruncatedEventData & { [K in Exclude<KeysOf<EventData<T>>, keyof TruncatedEventData>]?: undefined });

/** One event of type T with the envelope every event has. */
export type EventOf<T extends EventType> = {
  type: T;
  run_id: string;
  /** 1, 2, 3… per run. */
  seq: number;
  /** ISO-8601 UTC with milliseconds. */
  ts: string;
  /** The node that was running when the event happened, when there was one. */
  node?: string;
  /**
   * Present on the events of a sub-run (an agent file run by `agent.dispatch` / `agent.sequential`
   * / `agent.parallel`): where it happened, outermost sub-run first. The event's `node` stays the
   * top run's node that started the sub-run, so a host that knows nothing of sub-runs shows them
   * under that node. A sub-run has no `run_start` or `done` of its own: `log` events with
   * `source: 'sub_run'` mark its start and end.
   */
  sub_run?: SubRunFrame[];
  data: StoredEventData<T>;
};

/** One level of sub-run nesting: the agent file run, and its node the event happened in. */
export type SubRunFrame = { agent: string; file: string; node?: string };

/** An event of a run: a discriminated union on `type` (narrow on it to read `data`). */
export type AgentEvent<T extends EventType = EventType> = { [K in T]: EventOf<K> }[T];

/** What an action hands to `context.emit`: the engine adds run_id, seq, ts and node. */
export type EmittedEvent<T extends EventType = EventType> = { [K in T]: { type: K; data: EventData<K> } }[T];

/** The emit function actions and the model caller get: generic, so a wrong field does not compile. */
export type EmitEvent = <T extends EventType>(type: T, data: EventData<T>) => void;

/** True when an event's data was replaced by the size cap's summary. */
export function isTruncatedData(data: object): data is TruncatedEventData {
  const record = data as Partial<TruncatedEventData>;
  return record.truncated === true && typeof record.original_bytes === 'number' && typeof record.preview === 'string';
}
