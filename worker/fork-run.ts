/**
 * Time travel ("run from here"): a new run that continues after a completed node of an earlier
 * run, from a state the user may have edited (the state after every node is in the earlier run's
 * trace). This writes it as the new run's checkpoint, paused after that node, with a run record
 * naming its parent, so the engine's ordinary resume continues it. Shared by the studio's tab
 * engine (web-demo/engine-host.ts, IndexedDB) and the HTTP app (`POST /runs/:id/fork`). The
 * engine rewrites the record when the run ends; the studio keeps the link too.
 *
 * The state is checked as strictly as a fresh run's input (`forkedState`: plain JSON, the state
 * depth cap, the agent's `input_schema`), before anything is written: a fork cannot carry a run
 * past its guard node with a value the agent would refuse at the start. The checkpoint is written
 * before the record, so a fork that fails leaves no run listed that cannot be resumed (and a record
 * that cannot be written takes its checkpoint back). Who may fork which run is the host's check
 * (worker/run-access.ts); the new run's owner is the caller that forked it.
 */
import type { CompiledAgent } from '../src/graph/compiled-agent.js';
import type { CheckpointStore, RunLineage, RunOwner, RunRecord, TraceStore } from '../src/core/trace-store.js';
import { AgentError } from '../src/core/agent-error.js';
import { forkedState } from '../src/graph/run-input.js';

export interface ForkRequest {
  run_id: string;
  parent_run_id: string;
  node: string;
  state: Record<string, unknown>;
  /** The caller forking (a host with bearer tokens): the new run's owner. */
  owner?: RunOwner;
}

/** A run record with the run it was started from (RunRecord's lineage fields, set). */
export type ForkedRunRecord = RunRecord & RunLineage;

export async function forkRun(
  agent: CompiledAgent,
  stores: { traceStore: TraceStore; checkpointStore: CheckpointStore },
  request: ForkRequest,
): Promise<void> {
  if (!agent.nodes.has(request.node))
    throw new AgentError(
      'INVALID_PARAMS',
      `node '${request.node}' is not in agent '${agent.name}' (was the agent edited since?)`,
      { field: 'node' },
    );
  const state = forkedState(agent, request.state);
  const now = new Date().toISOString();
  const lineage: RunLineage = { parent_run_id: request.parent_run_id, forked_after: request.node };
  const owner = request.owner !== undefined ? { owner: request.owner } : {};
  const record: ForkedRunRecord = {
    run_id: request.run_id,
    agent: agent.name,
    status: 'interrupted',
    stop_reason: 'interrupt',
    created_at: now,
    updated_at: now,
    ...lineage,
    ...owner,
  };
  await stores.checkpointStore.save({
    checkpoint_id: `fork-${request.run_id}`,
    run_id: request.run_id,
    agent: agent.name,
    node: request.node,
    position: 'after',
    state,
    pending: { kind: 'interrupt', node: request.node, position: 'after' },
    seq: 0,
    usage: { steps: 0, llm_calls: 0, tokens: 0 },
    memory: {},
    lineage,
    ...owner,
    created_at: now,
  });
  try {
    await stores.traceStore.putRun(record);
  } catch (error) {
    await stores.checkpointStore.delete(request.run_id).catch(() => undefined);
    throw error;
  }
}
