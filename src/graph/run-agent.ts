/**
 * The engine's run entry points: `runAgent` and `resumeAgent` (→ AgentRun: an async iterable of
 * events with a `result` promise). `loadAgent` (text → CompiledAgent) is in load-agent.ts, so a
 * host that ships pre-checked agents (the worker) does not bundle the YAML parser. Resuming is in
 * resume-run.ts (one implementation for every host).
 *
 * @example
 *   const agent = loadAgent(yamlText, { file: 'agent.yaml' });
 *   const run = runAgent(agent, { topic: 'tea' });
 *   for await (const event of run) console.log(event.type);
 *   const { status, state } = await run.result;
 */
import type { CompiledAgent } from './compiled-agent.js';
import { RunSession } from './run-session.js';
import type { AgentRun, RunOptions } from './run-types.js';

export { resumeAgent } from './resume-run.js';

/** Starts a run. Never throws: every failure ends in a `done` event and a failed RunResult. */
export function runAgent(
  agent: CompiledAgent,
  input: Record<string, unknown> = {},
  options: RunOptions = {},
): AgentRun {
  const session = new RunSession(agent, options);
  const result = session.start(input);
  return {
    runId: session.runId,
    result,
    cancel: (reason) => session.cancel(reason),
    [Symbol.asyncIterator]: () => session.channel[Symbol.asyncIterator](),
  };
}
