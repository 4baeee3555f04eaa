/**
 * tea-edge/host: the API the hosts and the storage adapters are built on, and that an outside
 * host builds on the same way. cli/ and adapters/ import src/ only through this entry and the
 * other public ones (tests/build/layering.test.ts checks it); worker/ and web-demo/ do not yet
 * (docs/architecture.md, "Layers"). Its own entry, so none of it weighs on the main `tea-edge` entry; every module is
 * free of side effects, so a bundler keeps only what a host uses.
 *
 * `loadAgent` is the main entry's (every built-in action, Lua unless `scripts` says otherwise);
 * the sandboxes to pass are in `tea-edge/host/scripts`, and a host that must stay small builds on
 * `tea-edge/engine` instead. What storage adapters share is
 * in `tea-edge/host/storage`. The probes (`probeEndpoint`, `probeMcpServers`) are in
 * `tea-edge/host/probe`, a module of its own that a page loads when asked and a worker leaves out.
 *
 * @example
 *   import { loadAgent, runAgent } from 'tea-edge/host';
 *   import { ALL_SCRIPT_SANDBOXES, withPrologWhenUsed } from 'tea-edge/host/scripts';
 *   const agent = loadAgent(text, { scripts: await withPrologWhenUsed(ALL_SCRIPT_SANDBOXES, [text]) });
 *   const result = await runAgent(agent, { question: 'hi' }).result;
 */

// Loading and running agents
export { loadAgent } from './load-agent-with-scripts.js';
export { runAgent } from './graph/run-agent.js';
export { resumeAgent, pendingConfirmation } from './graph/resume-run.js';
export { fileStoreAgentSource, textAgentFileSource } from './graph/agent-files.js';
export { BUDGET_CEILINGS } from './graph/run-budget.js';
export { START, END } from './spec/agent-spec.js';
export type { GraphWarning, NodeBody } from './spec/agent-spec.js';
export type { AgentRun, LlmOverrides, ResumeInput, RunOptions, RunResult } from './graph/run-types.js';
export type { CompiledAgent } from './graph/compiled-agent.js';
export type { AgentSettings } from './core/agent-settings.js';
export { VERSION } from './version.js';

// Inline code: the sandbox contract (the sandboxes themselves are in tea-edge/host/scripts)
export type {
  CompiledScript,
  ScriptRunOptions,
  ScriptSandbox,
  ScriptSandboxes,
  ScriptSource,
} from './core/script-sandbox.js';

// Errors, load problems and events
export { AgentError, describeLocation, formatAgentError, toAgentError } from './core/agent-error.js';
export type { AgentErrorJson, ErrorCode } from './core/agent-error.js';
export { formatProblem, problemsOf } from './errors/load-problems.js';
export { cutWithMark } from './errors/cut-mark.js';
export type { LoadProblem } from './errors/load-problems.js';
export type { AgentEvent, EventType } from './core/events.js';

// Models: providers, replay, secrets kept out of what is shown
export { createProvider } from './llm/create-provider.js';
export { createReplayProvider } from './llm/replay.js';
export { redactSecrets } from './llm/redact.js';
export { envNameRefusal, secretsFromNames } from './spec/env-names.js';
export { ROLE_ORDER } from './reasoning/react/tool-table.js';
export type {
  ChatMessage,
  LlmConnection,
  LlmProvider,
  LlmRequest,
  LlmResponse,
  LlmStreamPart,
  ModelProvider,
  ModelProviderFactory,
} from './core/model-provider.js';

// Stores: the contracts (what every adapter shares is in tea-edge/host/storage)
export type {
  Checkpoint,
  CheckpointStore,
  Insight,
  ListRunsOptions,
  RetentionPolicy,
  RunPage,
  RunRecord,
  TraceStore,
} from './core/trace-store.js';
export type { FileStore } from './core/file-store.js';

// Small helpers hosts share with the engine
export { sleep } from './util/abort.js';
export { exponentialDelay } from './util/backoff.js';
export { quoteText } from './util/cut-text.js';
export { editDistance } from './util/edit-distance.js';
export { messageOf } from './util/message-of.js';
export { isPlainObject } from './util/plain-object.js';
export { sha256 } from './util/sha256.js';
