/**
 * Helpers for the reflection tests: load and run an agent text with extra actions and a
 * recording scripted model, collect events, and read a failed load's error.
 */
import { createActionRegistry } from '../../src/builtins.js';
import type { ActionDefinition } from '../../src/core/action.js';
import { AgentError } from '../../src/core/agent-error.js';
import type { AgentEvent } from '../../src/core/events.js';
import { resumeAgent, runAgent } from '../../src/graph/run-agent.js';
import { loadAgent } from '../../src/load-agent-with-scripts.js';
import type { ResumeInput, RunOptions, RunResult } from '../../src/graph/run-types.js';
import { createScriptedModel } from '../../src/llm/scripted-model.js';
import type { LlmConnection, LlmRequest } from '../../src/core/model-provider.js';

export interface RecordedCall {
  request: LlmRequest;
  connection: LlmConnection;
}

export interface RunOutcome {
  result: RunResult;
  events: AgentEvent[];
  calls: RecordedCall[];
  attempts: Array<Record<string, unknown>>;
}

export interface RunTestOptions extends RunOptions {
  actions?: ActionDefinition[];
  /** Scripted model responses, in call order (recorded with their requests). */
  responses?: unknown[];
  schemas?: Record<string, Record<string, unknown>>;
}

export function load(
  yaml: string,
  options: { actions?: ActionDefinition[]; schemas?: Record<string, Record<string, unknown>> } = {},
) {
  return loadAgent(yaml, {
    file: 'test.yaml',
    registry: createActionRegistry(options.actions ?? []),
    ...(options.schemas !== undefined ? { schemas: options.schemas } : {}),
  });
}

/** Runs an agent text; `responses` replace the model with a recording scripted one. */
export async function run(
  yaml: string,
  input: Record<string, unknown> = {},
  options: RunTestOptions = {},
): Promise<RunOutcome> {
  const { actions, responses, schemas, ...runOptions } = options;
  const agent = load(yaml, {
    ...(actions !== undefined ? { actions } : {}),
    ...(schemas !== undefined ? { schemas } : {}),
  });
  const calls: RecordedCall[] = [];
  if (responses !== undefined)
    runOptions.llm = { ...runOptions.llm, providerFactory: recordingFactory(responses, calls) };
  return collect(runAgent(agent, input, runOptions), calls);
}

export async function resume(
  yaml: string,
  runId: string,
  input: ResumeInput,
  options: RunTestOptions = {},
): Promise<RunOutcome> {
  const { actions, responses, schemas, ...runOptions } = options;
  const agent = load(yaml, {
    ...(actions !== undefined ? { actions } : {}),
    ...(schemas !== undefined ? { schemas } : {}),
  });
  const calls: RecordedCall[] = [];
  if (responses !== undefined)
    runOptions.llm = { ...runOptions.llm, providerFactory: recordingFactory(responses, calls) };
  return collect(resumeAgent(agent, runId, input, runOptions), calls);
}

/** A provider factory whose one scripted model (shared by every call of the run) records requests. */
export function recordingFactory(responses: unknown[], calls: RecordedCall[]) {
  const model = createScriptedModel(responses);
  return (connection: LlmConnection) => ({
    async generate(request: LlmRequest, signal?: AbortSignal) {
      calls.push({ request: structuredClone(request), connection: { ...connection } });
      return model.generate(request, signal);
    },
    stream(request: LlmRequest, signal?: AbortSignal) {
      calls.push({ request: structuredClone(request), connection: { ...connection } });
      return model.stream(request, signal);
    },
  });
}

async function collect(agentRun: ReturnType<typeof runAgent>, calls: RecordedCall[]): Promise<RunOutcome> {
  const events: AgentEvent[] = [];
  for await (const event of agentRun) events.push(event);
  const result = await agentRun.result;
  return {
    result,
    events,
    calls,
    attempts: events.filter((event) => event.type === 'reflection_attempt').map((event) => event.data),
  };
}

/** The AgentError that loading the text throws. */
export function loadError(yaml: string, options: { actions?: ActionDefinition[] } = {}): AgentError {
  try {
    load(yaml, options);
  } catch (error) {
    if (AgentError.isInstance(error)) return error;
    throw new Error(`expected an AgentError, got ${String(error)}`);
  }
  throw new Error('expected the agent to fail to load');
}

/** An action that answers from a list (the last answer repeats) and counts its calls. */
export function scriptedAction(
  name: string,
  answers: Array<unknown | Error | ((params: Record<string, unknown>, state: Record<string, unknown>) => unknown)>,
) {
  const calls: Array<{ params: Record<string, unknown>; state: Record<string, unknown> }> = [];
  const action: ActionDefinition = {
    name,
    description: `test action ${name}`,
    run(params, context) {
      calls.push({ params: structuredClone(params), state: structuredClone(context.state) as Record<string, unknown> });
      const answer = answers[Math.min(calls.length - 1, answers.length - 1)];
      if (answer instanceof Error) throw answer;
      return typeof answer === 'function'
        ? (answer as (p: Record<string, unknown>, s: Record<string, unknown>) => unknown)(
            params,
            context.state as Record<string, unknown>,
          )
        : structuredClone(answer);
    },
  };
  return { action, calls };
}

/** YAML for a one-node agent running `action` with `params` (JSON is valid YAML). */
export function agentYaml(
  action: string,
  params: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): string {
  return JSON.stringify(
    { name: 'reflection-test', ...extra, nodes: [{ name: 'reflect', uses: action, with: params }] },
    null,
    2,
  );
}
