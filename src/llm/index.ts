/**
 * The model layer's public pieces: the OpenAI-compatible client, the scripted and replay providers,
 * the per-run ModelCaller the engine uses, the capability probe and the SSE
 * parser. See ./README.md.
 */

// Providers
export { createProvider } from './create-provider.js';
export { createOpenAiClient, DEFAULT_MAX_RETRIES, type OpenAiClientOptions } from './openai-client.js';
export { DEFAULT_FIRST_TOKEN_TIMEOUT_MS, DEFAULT_IDLE_TIMEOUT_MS } from './model-timeouts.js';
export { createScriptedModel, SCRIPTED_MODEL_NAME, type ScriptedModel } from './scripted-model.js';
export type { ScriptedInput, ScriptedResponse } from './scripted-script.js';
export {
  createReplayProvider,
  recordedCalls,
  type ReplayMismatch,
  type ReplayOptions,
  type ReplayProvider,
  type RecordedCall,
} from './replay.js';
export { PROVIDER_NAMES, PROVIDER_PRESETS, presetApiBase } from './presets.js';

// The engine's per-run model caller (the llm.* actions live in src/actions/)
export { createModelCaller, type ModelCaller, type ModelCallerEnvironment } from './model-caller.js';
export { resolveLlmCall, DEFAULT_TEMPERATURE, type ResolvedLlmCall } from './resolve-llm-call.js';

// Capability probe
export { probeEndpoint, type ProbeOptions, type ProbeReport } from './probe.js';

// Building blocks
export { createSseParser, type SseEvent, type SseParser } from './sse-parser.js';
export { createThinkTagSplitter, splitThinking, type ThinkTagSplitter, type ThinkingSplit } from './think-tags.js';
export {
  describeServerError,
  serverErrorMessage,
  type ServerErrorReason,
  type ServerErrorReport,
} from './server-error.js';
export { isRetryableStatus } from './llm-errors.js';
export { parseRetryAfter, retryDelay, DEFAULT_RETRY_TIMING, type RetryTiming } from './retry.js';
export { redactSecrets, redactValue, REDACTED } from './redact.js';
export { DEFAULT_MAX_RESPONSE_BYTES } from './read-capped-body.js';

export type {
  ChatMessage,
  LlmCallHooks,
  LlmConnection,
  LlmProvider,
  LlmProviderFactory,
  ModelProvider,
  ModelProviderFactory,
  LlmRequest,
  LlmResponse,
  LlmStreamPart,
  ResponseFormat,
  TokenUsage,
  ToolCall,
  ToolDefinition,
} from '../core/model-provider.js';
