/**
 * Resuming an interrupted run: the one implementation every host calls (the engine's
 * `resumeAgent`, the HTTP app's `POST /runs/:id/resume`, `tea-edge resume`).
 *
 *   findResumable   the run's latest checkpoint, or NOT_FOUND / CONFLICT saying why there is none
 *   resumeRun       finds it, picks the agent it belongs to, and continues the run (hosts that
 *                   serve several agents)
 *   resumeAgent     continues a run of a known agent (run-agent.ts re-exports it)
 *
 * Continuing (docs/execution-model.md "Resume"): `state_update` is merged into the checkpoint's
 * state; a before-interrupt re-runs the node, an after-interrupt moves on; `approval` answers a
 * tool confirmation (no answer is a denial). The checkpoint is claimed first, so two resumers never
 * both continue one pause; a claim lost is CONFLICT.
 */
import type { ResumeInfo } from '../core/action.js';
import { AgentError, toAgentError } from '../core/agent-error.js';
import type { AgentEvent } from '../core/events.js';
import type { Checkpoint, CheckpointStore, TraceStore } from '../core/trace-store.js';
import { mergeShallow } from '../util/safe-json.js';
import { forkedState } from './run-input.js';
import type { CompiledAgent } from './compiled-agent.js';
import { nextNode } from './route.js';
import { RunSession } from './run-session.js';
import type { AgentRun, NodeCheckpoint, ResumeInput, RunOptions, RunResult } from './run-types.js';
import { END } from '../spec/agent-spec.js';

/** Resolves an agent by name (a host's table of served agents). */
export type AgentLookup = (name: string) => CompiledAgent | undefined | Promise<CompiledAgent | undefined>;

/**
 * The run's latest checkpoint. Without one: NOT_FOUND when the run is unknown or its checkpoint
 * is gone (expired, or on an eventually consistent store not visible yet), CONFLICT when the run
 * is running or finished. With `expected` (ResumeInput.checkpoint_id), CONFLICT when the latest
 * is another pause. A store that fails is STORAGE_ERROR.
 */
export async function findResumable(
  runId: string,
  stores: { checkpointStore: CheckpointStore; traceStore?: TraceStore | undefined },
  expected?: string,
): Promise<Checkpoint> {
  const checkpoint = await stores.checkpointStore.loadLatest(runId).catch((error) => {
    throw toAgentError(error, 'STORAGE_ERROR');
  });
  if (checkpoint !== undefined && expected !== undefined && checkpoint.checkpoint_id !== expected) {
    throw new AgentError(
      'CONFLICT',
      `run '${runId}' is not paused at checkpoint '${expected}' any more (another resume continued it; it is now paused at '${checkpoint.checkpoint_id}')`,
      {
        details: { checkpoint_id: expected, latest_checkpoint_id: checkpoint.checkpoint_id },
      },
    );
  }
  if (checkpoint !== undefined) return checkpoint;
  const record = await stores.traceStore?.getRun(runId).catch((error) => {
    throw toAgentError(error, 'STORAGE_ERROR');
  });
  if (record === undefined) throw new AgentError('NOT_FOUND', `no run '${runId}'`);
  if (record.status === 'interrupted')
    throw new AgentError(
      'NOT_FOUND',
      `run '${runId}' is interrupted but its checkpoint is not found (expired, or not yet visible here)`,
    );
  throw new AgentError('CONFLICT', `run '${runId}' is ${record.status}; only an interrupted run can be resumed`);
}

/**
 * Resumes a run of whichever agent it belongs to. Rejects (before anything runs) when there is
 * nothing to resume (findResumable) or the agent is not served (NOT_FOUND); after that every
 * failure, a lost claim included, ends in the AgentRun's `done` event and result.
 */
export async function resumeRun(
  agents: AgentLookup,
  runId: string,
  resume: ResumeInput,
  options: RunOptions,
): Promise<AgentRun> {
  const checkpointStore = options.checkpointStore;
  if (checkpointStore === undefined)
    throw new AgentError('INVALID_PARAMS', 'resume needs the checkpoint store the run was started with');
  const checkpoint = await findResumable(
    runId,
    { checkpointStore, traceStore: options.traceStore },
    resume.checkpoint_id,
  );
  const agent = await agents(checkpoint.agent);
  if (agent === undefined)
    throw new AgentError(
      'NOT_FOUND',
      `run '${runId}' belongs to agent '${checkpoint.agent}', which is not served here`,
    );
  return continueRun(agent, runId, Promise.resolve(checkpoint), resume, { ...options, checkpointStore });
}

/**
 * Continues an interrupted run of `agent` from its latest checkpoint. Never throws: NOT_FOUND,
 * CONFLICT (another agent's run, a finished run, a claim lost) come back through `result`.
 */
export function resumeAgent(
  agent: CompiledAgent,
  runId: string,
  resume: ResumeInput = {},
  options: RunOptions = {},
): AgentRun {
  const checkpointStore = options.checkpointStore;
  if (checkpointStore === undefined) {
    return failedRun(
      runId,
      new AgentError('INVALID_PARAMS', 'resume needs the checkpoint store the run was started with'),
    );
  }
  const found = findResumable(runId, { checkpointStore, traceStore: options.traceStore }, resume.checkpoint_id).then(
    (checkpoint) => {
      if (checkpoint.agent !== agent.name)
        throw new AgentError('CONFLICT', `run '${runId}' belongs to agent '${checkpoint.agent}', not '${agent.name}'`);
      return checkpoint;
    },
  );
  return continueRun(agent, runId, found, resume, { ...options, checkpointStore });
}

/**
 * Continues a run whose durable host died mid-run, from its last node checkpoint (RunDurability):
 * the checkpoint's node runs again (at least once per node), events number on after `lastSeq`
 * (the log's last, which may be past the checkpoint's: the partial events of the node that was
 * running stay, and nothing is numbered twice). The host claims the run before calling this.
 */
export function continueFromNode(
  agent: CompiledAgent,
  checkpoint: NodeCheckpoint,
  lastSeq: number,
  options: RunOptions,
): AgentRun {
  if (checkpoint.agent !== agent.name)
    return failedRun(
      checkpoint.run_id,
      new AgentError(
        'CONFLICT',
        `run '${checkpoint.run_id}' belongs to agent '${checkpoint.agent}', not '${agent.name}'`,
      ),
    );
  if (!agent.nodes.has(checkpoint.node))
    return failedRun(
      checkpoint.run_id,
      new AgentError(
        'CONFLICT',
        `node '${checkpoint.node}' of run '${checkpoint.run_id}' is not in agent '${agent.name}' any more`,
      ),
    );
  const session = new RunSession(agent, options, {
    runId: checkpoint.run_id,
    seq: Math.max(checkpoint.seq, lastSeq),
    usage: checkpoint.usage,
    memory: checkpoint.memory,
    createdAt: checkpoint.run_created_at,
    scriptedCalls: checkpoint.model_state.scripted_calls,
    budgetStartedAt: checkpoint.budget_started_at,
    ...(checkpoint.lineage !== undefined ? { lineage: checkpoint.lineage } : {}),
    ...(checkpoint.owner !== undefined ? { owner: checkpoint.owner } : {}),
  });
  return {
    runId: session.runId,
    result: session.continueAfterRestart(checkpoint),
    cancel: (reason) => session.cancel(reason),
    [Symbol.asyncIterator]: () => session.channel[Symbol.asyncIterator](),
  };
}

/**
 * Refuses (INPUT_INVALID, STATE_INVALID) a `state_update` that makes the paused state one a fork
 * could not carry (`forkedState`: input_schema, the state depth cap). Called before the pause is
 * claimed, so a refused resume leaves the run paused; hosts that claim pauses themselves call it
 * before their claim.
 */
export function checkStateUpdate(agent: CompiledAgent, checkpoint: Checkpoint, resume: ResumeInput): void {
  if (resume.state_update !== undefined) forkedState(agent, mergeShallow({ ...checkpoint.state }, resume.state_update));
}

/** The pending tool confirmation of an interrupted run, if that is what it waits for. */
export async function pendingConfirmation(
  runId: string,
  checkpointStore: CheckpointStore,
): Promise<{ tool: string; node: string } | undefined> {
  const checkpoint = await checkpointStore.loadLatest(runId).catch(() => undefined);
  const pending = checkpoint?.pending;
  return pending?.kind === 'tool_confirmation' ? { tool: pending.tool, node: pending.node } : undefined;
}

function continueRun(
  agent: CompiledAgent,
  runId: string,
  found: Promise<Checkpoint>,
  resume: ResumeInput,
  options: RunOptions & { checkpointStore: CheckpointStore },
): AgentRun {
  let session: RunSession | undefined;
  const claimed = found.then(async (checkpoint) => {
    // Checked before the claim, so an agent file edited since the pause leaves the run resumable.
    const node = agent.nodes.get(checkpoint.node);
    if (node === undefined)
      throw new AgentError('CONFLICT', `checkpoint node '${checkpoint.node}' is not in agent '${agent.name}' any more`);
    if (checkpoint.position === 'after' && node.route.kind === 'parallel') {
      throw new AgentError('INVALID_AGENT', 'resuming after a fan-out node is not supported', { node: node.name });
    }
    checkStateUpdate(agent, checkpoint, resume);
    if (!(await options.checkpointStore.claim(runId, checkpoint.checkpoint_id))) {
      throw new AgentError('CONFLICT', `run '${runId}' is already being resumed`);
    }
    session = new RunSession(agent, options, {
      runId,
      seq: checkpoint.seq,
      usage: checkpoint.usage,
      memory: checkpoint.memory,
      createdAt: checkpoint.created_at,
      ...(checkpoint.model_state?.scripted_calls !== undefined
        ? { scriptedCalls: checkpoint.model_state.scripted_calls }
        : {}),
      ...(checkpoint.lineage !== undefined ? { lineage: checkpoint.lineage } : {}),
      ...(checkpoint.owner !== undefined ? { owner: checkpoint.owner } : {}),
    });
    return { session, checkpoint };
  });
  const result = claimed.then(({ session: started, checkpoint }) => continueFrom(started, checkpoint, resume));
  return {
    runId,
    result: result.catch((error) => failedResult(runId, toAgentError(error, 'INTERNAL'))),
    cancel(reason) {
      session?.cancel(reason);
    },
    async *[Symbol.asyncIterator](): AsyncGenerator<AgentEvent> {
      let started: RunSession;
      try {
        started = (await claimed).session;
      } catch {
        return;
      }
      yield* started.channel;
    },
  };
}

/** Runs a claimed checkpoint on: merges `state_update`, then re-runs or moves past the node. */
function continueFrom(session: RunSession, checkpoint: Checkpoint, resume: ResumeInput): Promise<RunResult> {
  // mergeShallow drops __proto__, constructor and prototype keys.
  const state = mergeShallow({ ...checkpoint.state }, resume.state_update ?? {});
  const node = session.agent.nodes.get(checkpoint.node)!;
  if (checkpoint.position === 'after') {
    // Routing can fail (a condition that does not render): the session reports it as a failed
    // run with its done event, like any failure once the checkpoint is claimed.
    let next;
    try {
      next = nextNode(node, session.baseScope(state));
    } catch (error) {
      return session.failBeforeStart(state, error);
    }
    if (typeof next !== 'string')
      return session.failBeforeStart(
        state,
        new AgentError('INVALID_AGENT', 'resuming after a fan-out node is not supported', { node: node.name }),
      );
    return session.resumeFrom(state, { node: next, skipInterruptBefore: next === END });
  }
  let resumeInfo: ResumeInfo | undefined;
  if (checkpoint.pending.kind === 'tool_confirmation') {
    resumeInfo = {
      approval: resume.approval ?? { approved: false },
      ...(checkpoint.resume_data !== undefined ? { resume_data: checkpoint.resume_data } : {}),
    };
  }
  return session.resumeFrom(state, {
    node: node.name,
    skipInterruptBefore: true,
    ...(resumeInfo !== undefined ? { resume: resumeInfo } : {}),
  });
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
