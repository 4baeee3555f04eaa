/**
 * `tea-edge/engine`: the engine with no action and no script language of its own. `loadAgent` and
 * `compileAgent` take the actions agents may name (`registry`, built from the action sets:
 * `tea-edge/actions/core`, `tea-edge/actions/llm`, `tea-edge/actions/tools`, `tea-edge/reasoning`,
 * `tea-edge/reflection`, `tea-edge/prolog`) and the script sandboxes (`scripts`: `tea-edge/lua`,
 * `tea-edge/prolog`). An agent naming an action or a language the host did not pass fails at load
 * (UNKNOWN_ACTION / SCRIPT_ENGINE_NOT_LOADED, naming the import that adds it). A bundle carries
 * what its imports reach: `compileAgent` and `runAgent` without `loadAgent` carry no YAML parser
 * and no agent-schema checks. The main entry, `tea-edge`, is this with everything passed.
 *
 * @example
 * import { loadAgent, runAgent, createRegistry } from 'tea-edge/engine';
 * import { llmActions } from 'tea-edge/actions/llm';
 * const agent = loadAgent(yamlText, { registry: createRegistry(llmActions()) });
 */

// Loading and running agents
export { runAgent, resumeAgent } from './graph/run-agent.js';
export { loadAgent, type LoadAgentOptions } from './graph/load-agent.js';
export { compileAgent, type CompileOptions } from './graph/compile-agent.js';
export type { AgentRun, RunOptions, RunResult, ResumeInput, LlmOverrides } from './graph/run-types.js';
export type { CompiledAgent, CompiledNode } from './graph/compiled-agent.js';
export {
  compiledAgentFileSource,
  fileStoreAgentSource,
  textAgentFileSource,
  type AgentFileSource,
} from './graph/agent-files.js';
export type { FileStore } from './core/file-store.js';
export type {
  ScriptSandbox,
  ScriptSandboxes,
  ScriptLanguage,
  CompiledScript,
  ScriptBudget,
  ScriptRunOptions,
  ScriptSource,
  ScriptErrorCodes,
} from './core/script-sandbox.js';
export type { AgentSpec, NodeSpec } from './spec/agent-spec.js';
export { readAgentSpec } from './spec/read-agent-spec.js';

// Errors and events
export { AgentError, ERROR_CODES, formatAgentError, toAgentError } from './core/agent-error.js';
export type { ErrorCode, ErrorLocation, AgentErrorJson } from './core/agent-error.js';
export { formatProblem, problemsOf, MAX_LOAD_PROBLEMS } from './errors/load-problems.js';
export type { LoadProblem } from './errors/load-problems.js';
export { EVENT_TYPES, isTruncatedData } from './core/events.js';
export type {
  AgentEvent,
  EventData,
  EventDataMap,
  EventError,
  EventOf,
  EventType,
  RunStatus,
  StopReason,
  SubRunFrame,
} from './core/events.js';
export { upgradeEvent } from './events/upgrade-event.js';
export { sanitizeEvent } from './events/redact.js';

// Actions: a registry of exactly the actions given (the sets, the host's own)
export { createRegistry, type ActionRegistry } from './actions/registry.js';
export type { ActionDefinition, ActionContext, ActionCompiler, JsonSchema } from './core/action.js';

// Models
export { createProvider } from './llm/create-provider.js';
export { createScriptedModel } from './llm/scripted-model.js';
export { probeEndpoint } from './llm/probe-on-demand.js';
export type {
  ModelProvider,
  ModelProviderFactory,
  LlmProvider,
  LlmProviderFactory,
  LlmRequest,
  LlmResponse,
  ChatMessage,
  ToolCall,
} from './core/model-provider.js';

// Storage
export { createMemoryStores } from './storage/memory-store.js';
export type {
  TraceStore,
  CheckpointStore,
  RunRecord,
  Checkpoint,
  RunPage,
  ListRunsOptions,
  RetentionPolicy,
} from './core/trace-store.js';
