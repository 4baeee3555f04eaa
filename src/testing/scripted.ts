/**
 * Test helpers for agent authors (published at `tea-edge/testing`): run an agent file against a
 * scripted model and get back its events and final state, so an agent can be unit-tested with no
 * model server.
 *
 * @example
 * const { state, events, calls } = await runAgentWithScript(yaml, {
 *   input: { question: 'What is 2 + 2?' },
 *   responses: ['{"answer": 4}'],
 * });
 * expect(state.answer).toBe(4);
 */
import type { ActionDefinition } from '../core/action.js';
import { createActionRegistry } from '../builtins.js';
import type { AgentEvent } from '../core/events.js';
import { runAgent } from '../graph/run-agent.js';
import { loadAgent } from '../load-agent-with-scripts.js';
import type { RunOptions, RunResult } from '../graph/run-types.js';
import { createScriptedModel, type ScriptedModel } from '../llm/scripted-model.js';
import type { ScriptedInput } from '../llm/scripted-script.js';
import type { LlmRequest } from '../core/model-provider.js';

export interface RunAgentWithScriptOptions {
  /** The run input (default `{}`). */
  input?: Record<string, unknown>;
  /**
   * The scripted model's answers for every model call of the run, nested ones included: a list
   * used in order, or rules (see `createScriptedModel`). They replace the agent's own endpoint.
   */
  responses: ScriptedInput;
  /** Extra actions to register (tools the agent uses). */
  actions?: ActionDefinition[];
  /** The agent's file name, for error messages. */
  file?: string;
  /** Other run options (limits, secrets, role, stores…); `llm` is set by the helper. */
  runOptions?: Omit<RunOptions, 'llm'>;
}

export interface ScriptedRunOutcome {
  /** Every event of the run, in order. */
  events: AgentEvent[];
  /** The final state. */
  state: Record<string, unknown>;
  result: RunResult;
  /** The requests the scripted model received, in order. */
  calls: LlmRequest[];
  /** The scripted model itself (e.g. to check `remaining`). */
  model: ScriptedModel;
}

/** Loads and runs an agent with every model call answered by a scripted model. */
export async function runAgentWithScript(
  yamlSource: string,
  options: RunAgentWithScriptOptions,
): Promise<ScriptedRunOutcome> {
  const model = createScriptedModel(options.responses);
  const agent = loadAgent(yamlSource, {
    ...(options.file !== undefined ? { file: options.file } : {}),
    ...(options.actions !== undefined ? { registry: createActionRegistry(options.actions) } : {}),
  });
  const run = runAgent(agent, options.input ?? {}, { ...options.runOptions, llm: { providerFactory: () => model } });
  const events: AgentEvent[] = [];
  for await (const event of run) events.push(event);
  const result = await run.result;
  return { events, state: result.state, result, calls: model.calls, model };
}

export { createScriptedModel };
export type { ScriptedModel, ScriptedInput };
