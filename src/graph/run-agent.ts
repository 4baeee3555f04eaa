/**
 * The engine's run entry points: `runAgent` and `resumeAgent` (→ AgentRun: an async iterable of
 * events with a `result` promise). `loadAgent` (text → CompiledAgent) is in load-agent.ts, so a
 * host that ships pre-checked agents (the worker) does not bundle the YAML parser.
 *
 * @example
 *   const agent = loadAgent(yamlText, { file: 'agent.yaml' });
 *   const run = runAgent(agent, { topic: 'tea' });
 *   for await (const event of run) console.log(event.type);
 *   const { status, state } = await run.result;
 */
import { AgentError, toAgentError } from '../errors/agent-error.js';
import type { CompiledAgent } from './compiled-agent.js';
import { nextNode } from './route.js';
import { RunSession } from './run-session.js';
import type { AgentRun, ResumeInput, RunOptions, RunResult } from './run-types.js';

/** Starts a run. Never throws: every failure ends in a `done` event and a failed RunResult. */
export function runAgent(agent: CompiledAgent, input: Record<string, unknown> = {}, options: RunOptions = {}): AgentRun {
  const session = new RunSession(agent, options);
  const result = session.start(input);
  return toAgentRun(session, result);
}

/**
 * Continues an interrupted run from its latest checkpoint (SPEC §1.6): a before-interrupt re-runs
 * the node, an after-interrupt moves on; `state_update` is merged first; `approval` answers a tool
 * confirmation. Needs the checkpoint store (and trace store) the run was started with.
 * Rejects (via `result`) with NOT_FOUND for an unknown run and CONFLICT for a finished run or a
 * checkpoint another resumer already claimed.
 */
export function resumeAgent(agent: CompiledAgent, runId: string, resume: ResumeInput = {}, options: RunOptions = {}): AgentRun {
  const checkpointStore = options.checkpointStore;
  if (checkpointStore === undefined) {
    return failedRun(runId, new AgentError('INVALID_PARAMS', 'resume needs the checkpoint store the run was started with'));
  }
  const ready = (async () => {
    const checkpoint = await checkpointStore.loadLatest(runId).catch((error) => {
      throw toAgentError(error, 'STORAGE_ERROR');
    });
    if (checkpoint === undefined) {
      const record = await options.traceStore?.getRun(runId).catch(() => undefined);
      if (record !== undefined && record.status !== 'interrupted') {
        throw new AgentError('CONFLICT', `run '${runId}' has already ${record.status === 'running' ? 'started and is still running' : `finished (${record.status})`}; only an interrupted run can be resumed`);
      }
      throw new AgentError('NOT_FOUND', `no interrupted run '${runId}' (no checkpoint)`);
    }
    if (checkpoint.agent !== agent.name) {
      throw new AgentError('CONFLICT', `run '${runId}' belongs to agent '${checkpoint.agent}', not '${agent.name}'`);
    }
    // Checked before the claim, so an agent file edited since the pause leaves the run resumable.
    const node = agent.nodes.get(checkpoint.node);
    if (node === undefined) throw new AgentError('CONFLICT', `checkpoint node '${checkpoint.node}' is not in agent '${agent.name}' any more`);
    if (checkpoint.position === 'after' && node.route.kind === 'parallel') {
      throw new AgentError('INVALID_AGENT', 'resuming after a fan-out node is not supported', { node: node.name });
    }
    if (!(await checkpointStore.claim(runId, checkpoint.checkpoint_id))) {
      throw new AgentError('CONFLICT', `run '${runId}' is already being resumed`);
    }
    return checkpoint;
  })();
  let session: RunSession | undefined;
  const channelReady = ready.then((checkpoint) => {
    session = new RunSession(agent, options, {
      runId,
      seq: checkpoint.seq,
      usage: checkpoint.usage,
      memory: checkpoint.memory,
      createdAt: checkpoint.created_at,
      ...(checkpoint.model_state?.scripted_calls !== undefined ? { scriptedCalls: checkpoint.model_state.scripted_calls } : {}),
    });
    return { session, checkpoint };
  });
  const result = channelReady.then(async ({ session: started, checkpoint }) => {
    const state = { ...checkpoint.state };
    for (const [key, value] of Object.entries(resume.state_update ?? {})) {
      if (key !== '__proto__' && key !== 'constructor' && key !== 'prototype') state[key] = value;
    }
    const node = agent.nodes.get(checkpoint.node)!;
    if (checkpoint.position === 'after') {
      // Routing can fail (a condition that does not render): the session reports it as a failed
      // run with its done event, like any failure once the checkpoint is claimed.
      let next;
      try {
        next = nextNode(node, started.baseScope(state));
      } catch (error) {
        return started.failBeforeStart(state, error);
      }
      if (typeof next !== 'string') return started.failBeforeStart(state, new AgentError('INVALID_AGENT', 'resuming after a fan-out node is not supported', { node: node.name }));
      if (next === '__end__') return started.resumeFrom(state, { node: '__end__', skipInterruptBefore: true });
      return started.resumeFrom(state, { node: next, skipInterruptBefore: false });
    }
    const resumeInfo =
      checkpoint.pending.kind === 'tool_confirmation'
        ? { approval: resume.approval ?? { approved: false }, ...(checkpoint.resume_data !== undefined ? { resume_data: checkpoint.resume_data } : {}) }
        : undefined;
    return started.resumeFrom(state, { node: node.name, skipInterruptBefore: true, ...(resumeInfo !== undefined ? { resume: resumeInfo } : {}) });
  });
  const events: AsyncIterable<import('../events/event.js').AgentEvent> = {
    async *[Symbol.asyncIterator]() {
      let started: RunSession;
      try {
        started = (await channelReady).session;
      } catch {
        return;
      }
      yield* started.channel;
    },
  };
  return {
    runId,
    result: result.catch((error) => failedResult(runId, toAgentError(error, 'INTERNAL'))),
    cancel(reason) {
      session?.cancel(reason);
    },
    [Symbol.asyncIterator]: () => events[Symbol.asyncIterator](),
  };
}

function toAgentRun(session: RunSession, result: Promise<RunResult>): AgentRun {
  return {
    runId: session.runId,
    result,
    cancel: (reason) => session.cancel(reason),
    [Symbol.asyncIterator]: () => session.channel[Symbol.asyncIterator](),
  };
}

function failedResult(runId: string, error: AgentError): RunResult {
  return { run_id: runId, status: 'failed', stop_reason: 'error', state: {}, error: error.toJSON() };
}

function failedRun(runId: string, error: AgentError): AgentRun {
  return {
    runId,
    result: Promise.resolve(failedResult(runId, error)),
    cancel() {},
    async *[Symbol.asyncIterator]() {},
  };
}
