/**
 * The ModelProvider seam and the shapes of OpenAI-compatible Chat Completions that cross it.
 * Implementations: the HTTP client over fetch (src/llm/openai-client.ts), the scripted model
 * (src/llm/scripted-model.ts) and replay (src/llm/replay.ts); each runs the shared conformance
 * suite src/testing/model-provider-conformance.ts.
 */

export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | null;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
  name?: string;
}

export interface ToolDefinition {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown> };
}

export type ResponseFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; json_schema: { name: string; schema: Record<string, unknown>; strict?: boolean } };

export interface TokenUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** Where and how to reach a model: merged from settings.llm, the call and host overrides. */
export interface LlmConnection {
  /** `ollama` | `lmstudio` | `llamacpp` | `vllm` | `openai` | `scripted` | `openai-compatible`. */
  provider?: string;
  api_base?: string;
  api_key?: string;
  /**
   * The longest silence of the server between body bytes once the answer started, in milliseconds
   * (settings accept seconds as `timeout`; default 60 s); also the wait for the first byte when
   * `first_token_timeout_ms` is not given.
   */
  timeout_ms?: number;
  /**
   * The longest wait for the response headers and first byte of an answer, whole or streamed, in
   * milliseconds (settings: `first_token_timeout`, seconds; default: `timeout` when set, else 120 s).
   */
  first_token_timeout_ms?: number;
  max_retries?: number;
  /** Scripted model responses/rules when provider is `scripted`. */
  scripted?: unknown;
  /** Responses of a scripted list already used (a resumed run continues after them). */
  scripted_start?: number;
  /** With `provider: shell` (TEA's shell provider): which of the host's commands answers. */
  shell_provider?: string;
}

export interface LlmRequest {
  messages: ChatMessage[];
  model?: string;
  temperature?: number;
  max_tokens?: number;
  response_format?: ResponseFormat;
  tools?: ToolDefinition[];
  tool_choice?: 'auto' | 'none' | 'required' | { type: 'function'; function: { name: string } };
  /** Sampling extras passed through to the server when given. */
  top_p?: number;
  stop?: string | string[];
  seed?: number;
  presence_penalty?: number;
  frequency_penalty?: number;
}

export interface LlmResponse {
  /** The answer, without any `<think>…</think>` thinking (src/llm/think-tags.ts). */
  content: string;
  /**
   * The model's thinking, when it gave any: the server's `reasoning_content` / `reasoning` field
   * and `<think>` blocks taken out of the content, joined by a blank line.
   */
  reasoning?: string;
  tool_calls?: ToolCall[];
  /**
   * Set when `tool_calls` were read from the answer's text (the server did not parse them): the
   * form they were written in (`hermes`, `llama-python-tag`, `llama-function`, `mistral`, `json`).
   */
  tool_call_format?: string;
  usage: TokenUsage;
  model: string;
  finish_reason: string | null;
}

/**
 * One piece of a streamed response. The last part is always `done` with the whole response.
 * `tool_call_delta.index` identifies one call within the stream (in order of appearance).
 */
export type LlmStreamPart =
  | { type: 'delta'; content: string }
  /** A piece of the model's thinking (a reasoning field or text inside `<think>` tags). */
  | { type: 'reasoning_delta'; content: string }
  | { type: 'tool_call_delta'; index: number; name?: string; arguments?: string }
  | { type: 'done'; response: LlmResponse };

/** Per-call hooks a provider calls while it works (optional for providers without retries). */
export interface LlmCallHooks {
  /**
   * Called before every retry (attempt 2, 3, …) with the reason; may throw (e.g. a budget) to stop
   * retrying. The first attempt is not announced: the caller counts it before calling.
   */
  beforeRetry?(retry: { attempt: number; delay_ms: number; error: { code: string; message: string } }): void;
}

/** The model seam: everything the engine needs from a model, whatever answers it. */
export interface ModelProvider {
  /** One completion; rejects with an AgentError (LLM_* codes) after the allowed retries. */
  generate(request: LlmRequest, signal?: AbortSignal, hooks?: LlmCallHooks): Promise<LlmResponse>;
  /** A streamed completion; a cut or malformed stream rejects, never yields a partial `done`. */
  stream(request: LlmRequest, signal?: AbortSignal, hooks?: LlmCallHooks): AsyncIterable<LlmStreamPart>;
  /**
   * True when the provider only borrows each request: it reads the request during the call (until
   * the promise settles or the stream ends), changes nothing in it and keeps no reference to it
   * afterwards. The engine then lends it the message list it keeps for the next call of the same
   * history (a tool loop's, grown in place) instead of copying the whole history for every call.
   * Absent or false, every request is the provider's own to keep.
   */
  readonly borrowsRequest?: boolean;
}

/** Builds a provider for a connection; hosts may pass their own (e.g. with a shared fetch). */
export type ModelProviderFactory = (connection: LlmConnection) => ModelProvider;

/** @deprecated The old name of {@link ModelProvider}. */
export type LlmProvider = ModelProvider;
/** @deprecated The old name of {@link ModelProviderFactory}. */
export type LlmProviderFactory = ModelProviderFactory;

/** Everything an LLM call may carry: the request, the connection, and `stream`. */
export type LlmCallParams = Partial<LlmRequest> &
  LlmConnection & {
    prompt?: string;
    system?: string;
    /** Seconds, as in TEA's settings.llm (converted to timeout_ms). */
    timeout?: number;
    /** Seconds (converted to first_token_timeout_ms). */
    first_token_timeout?: number;
  };

/** An embeddings call (llm.embed): the texts, an optional model, and the connection keys of a chat call. */
export type EmbedCallParams = LlmConnection & {
  input: string[];
  model?: string;
  /** Seconds, as in TEA's settings.llm (converted to timeout_ms). */
  timeout?: number;
};

export interface LlmCallOptions {
  /** Stream tokens as `answer_chunk` events. */
  stream?: boolean;
  /** Extra data put on the llm_request/llm_response events (e.g. `{purpose: 'judge'}`). */
  label?: string;
  /**
   * What this call is for within its action, put on the llm_request event: `judge (attempt 2)`,
   * `ReAct step 4`, `plan`, `sub-problem b`, `synthesis`… (the studio shows it instead of five
   * identical rows of the action's label).
   */
  purpose?: string;
}
