/**
 * tea-edge: run YAML-declared LLM agents (The Edge Agent format) with reflection and reasoning,
 * the same on edge workers, in the browser and on Node. This is the curated public API.
 */

// Loading and running agents
export { runAgent, resumeAgent } from './graph/run-agent.js';
export { loadAgent } from './load-agent-with-scripts.js';
export type { LoadAgentOptions } from './graph/load-agent.js';
export type { AgentRun, RunOptions, RunResult, ResumeInput, LlmOverrides } from './graph/run-types.js';
export type { CompiledAgent, CompiledNode } from './graph/compiled-agent.js';
export { compiledAgentFileSource, fileStoreAgentSource, textAgentFileSource, type AgentFileSource } from './graph/agent-files.js';
export type { FileStore } from './core/file-store.js';

// Inline code: the ScriptSandbox seam and its Lua implementation (loadAgent above passes it)
export { luaSandbox, ALL_SCRIPT_SANDBOXES } from './lua/lua-script-sandbox.js';
// Prolog is loaded on demand (its own chunk): loadAgent(text, { scripts: await withPrologWhenUsed(ALL_SCRIPT_SANDBOXES, [text]) })
export { loadPrologSandbox, usesProlog, withPrologWhenUsed } from './prolog/load-prolog.js';
export type { ScriptSandbox, ScriptSandboxes, ScriptLanguage, CompiledScript, ScriptBudget, ScriptRunOptions, ScriptSource, ScriptErrorCodes } from './core/script-sandbox.js';
export type { AgentSpec, NodeSpec } from './spec/agent-spec.js';
export { readAgentSpec } from './spec/read-agent-spec.js';

// Errors and events
export { AgentError, ERROR_CODES, formatAgentError, toAgentError } from './core/agent-error.js';
export type { ErrorCode, ErrorLocation, AgentErrorJson } from './core/agent-error.js';
export { formatProblem, problemsOf, MAX_LOAD_PROBLEMS } from './errors/load-problems.js';
export type { LoadProblem } from './errors/load-problems.js';
export { EVENT_TYPES, isTruncatedData } from './core/events.js';
export type { AgentEvent, EventData, EventDataMap, EventError, EventOf, EventType, RunStatus, StopReason, SubRunFrame } from './core/events.js';
export { upgradeEvent } from './events/upgrade-event.js';
export { sanitizeEvent } from './events/redact.js';

// Actions
export { createActionRegistry } from './builtins.js';
export type { ActionRegistry } from './actions/registry.js';
export type { ActionDefinition, ActionContext, ActionCompiler, JsonSchema } from './core/action.js';

// Models
export { createProvider } from './llm/create-provider.js';
export { createScriptedModel } from './llm/scripted-model.js';
export { probeEndpoint } from './llm/probe.js';
export type { ModelProvider, ModelProviderFactory, LlmProvider, LlmProviderFactory, LlmRequest, LlmResponse, ChatMessage, ToolCall } from './core/model-provider.js';

// Storage
export { createMemoryStores } from './storage/memory-store.js';
export type { TraceStore, CheckpointStore, RunRecord, Checkpoint, RunPage, ListRunsOptions, RetentionPolicy } from './core/trace-store.js';

// Reflection review
export { reviewRun } from './reflection/review/review-run.js';
