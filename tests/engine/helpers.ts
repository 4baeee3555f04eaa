/** Small helpers for engine tests: load + run an agent text and collect its events. */
import { runAgent, resumeAgent } from '../../src/graph/run-agent.js';
import { loadAgent } from '../../src/load-agent-with-scripts.js';
import type { RunOptions, RunResult, ResumeInput } from '../../src/graph/run-types.js';
import type { AgentEvent } from '../../src/core/events.js';
import { AgentError } from '../../src/core/agent-error.js';

export async function runYaml(
  yaml: string,
  input: Record<string, unknown> = {},
  options: RunOptions = {},
): Promise<{ result: RunResult; events: AgentEvent[] }> {
  const agent = loadAgent(yaml, { file: 'test.yaml' });
  const run = runAgent(agent, input, options);
  const events: AgentEvent[] = [];
  for await (const event of run) events.push(event);
  return { result: await run.result, events };
}

export async function resumeYaml(
  yaml: string,
  runId: string,
  resume: ResumeInput,
  options: RunOptions,
): Promise<{ result: RunResult; events: AgentEvent[] }> {
  const agent = loadAgent(yaml, { file: 'test.yaml' });
  const run = resumeAgent(agent, runId, resume, options);
  const events: AgentEvent[] = [];
  for await (const event of run) events.push(event);
  return { result: await run.result, events };
}

/** The AgentError that loading the text throws (fails the test when it loads). */
export function loadError(yaml: string, options: Parameters<typeof loadAgent>[1] = {}): AgentError {
  try {
    loadAgent(yaml, { file: 'test.yaml', ...options });
  } catch (error) {
    if (AgentError.isInstance(error)) return error;
    throw new Error(`expected an AgentError, got ${String(error)}`);
  }
  throw new Error('expected the agent to fail to load');
}
