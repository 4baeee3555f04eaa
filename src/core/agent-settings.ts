/**
 * The `settings` block of an agent, typed as src/spec/agent-schema.json's closed `settings`
 * shape. The schema validates the document before a spec is built, so consumers read these
 * fields directly instead of casting at each use. Contracts only: this file imports nothing.
 * src/spec/agent-settings-shape.test.ts checks the key lists against the schema.
 */

/** `settings.llm`: the run's model connection and request defaults (TEA's keys). */
export interface LlmSettings {
  provider?: string;
  model?: string;
  api_base?: string;
  base_url?: string;
  api_key?: string;
  temperature?: number;
  max_tokens?: number;
  /** Seconds: the longest silence of the server within an attempt. */
  timeout?: number;
  /** Seconds: for streams, the longest wait for the first byte of the answer. */
  first_token_timeout?: number;
  max_retries?: number;
  /** Scripted model responses or rules (the scripted provider). */
  scripted?: unknown[] | Record<string, unknown>;
  top_p?: number;
  seed?: number;
  stop?: string | string[];
  presence_penalty?: number;
  frequency_penalty?: number;
  /** json_object, or {type: json_schema, json_schema: {name, schema}}. */
  response_format?: unknown;
}

/** `settings.limits`: per-run budgets. */
export interface LimitsSettings {
  max_steps?: number;
  max_llm_calls?: number;
  max_tokens?: number;
  max_duration_ms?: number;
  max_write_bytes?: number;
}

/** `settings.agents.<name>`: a TEA model persona (inherits settings.llm). */
export interface AgentPersonaSettings {
  model?: string;
  system_prompt?: string;
  temperature?: number;
  max_tokens?: number;
  timeout?: number;
  tools?: string[];
  retry?: { max_attempts?: number; backoff?: number };
}

/** `settings.reflection`: criteria of reflection.review. */
export interface ReflectionSettings {
  min_success_rate?: number;
  max_execution_time_multiplier?: number;
  require_all_tasks_complete?: boolean;
  check_output_quality?: boolean;
  enable_llm_reflection?: boolean;
  learn_from_episode?: boolean;
}

export interface AgentSettings {
  llm?: LlmSettings;
  limits?: LimitsSettings;
  parallel?: { max_concurrency?: number };
  http?: { allow?: string[]; max_bytes?: number; timeout_ms?: number };
  agents?: Record<string, AgentPersonaSettings>;
  web_search?: { provider: 'searxng'; url: string; api_key_secret?: string; language?: string };
  /** MCP servers whose allow-listed tools ReAct may call (docs/mcp.md; read by src/mcp/mcp-settings.ts). */
  mcp?: {
    servers: Array<{
      name: string;
      url: string;
      tools: string[];
      headers?: Record<string, string | { secret: string; prefix?: string }>;
    }>;
  };
  trace?: { capture_payloads?: boolean };
  reflection?: ReflectionSettings;
  lua?: { instructions?: number };
  /** Host environment variables templates may read as env.NAME. */
  env?: string[];
}
