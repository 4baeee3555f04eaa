/**
 * Time travel in the tab: a new run that continues after a completed node of an earlier run, from
 * a state the user may have edited. The state after every node is in the earlier run's trace (its
 * node updates, in IndexedDB); this writes it as the new run's checkpoint (paused after that
 * node) with a run record naming its parent, so the engine's ordinary resume continues it. (The
 * engine rewrites the record when the run ends; the page keeps the link too, in run-sources.ts.)
 */
import type { CompiledAgent } from '../src/graph/compiled-agent.js';
import type { CheckpointStore, RunRecord, TraceStore } from '../src/storage/trace-store.js';

export interface ForkRequest {
  run_id: string;
  parent_run_id: string;
  node: string;
  state: Record<string, unknown>;
}

/** A run record with the run it was started from (kept by the IndexedDB store as written). */
export type ForkedRunRecord = RunRecord & { parent_run_id?: string; forked_after?: string };

export async function forkRun(agent: CompiledAgent, stores: { traceStore: TraceStore; checkpointStore: CheckpointStore }, request: ForkRequest): Promise<void> {
  if (!agent.nodes.has(request.node)) throw Object.assign(new Error(`node '${request.node}' is not in agent '${agent.name}' (was the agent edited since?)`), { code: 'NOT_FOUND' });
  const now = new Date().toISOString();
  const record: ForkedRunRecord = { run_id: request.run_id, agent: agent.name, status: 'interrupted', stop_reason: 'interrupt', created_at: now, updated_at: now, parent_run_id: request.parent_run_id, forked_after: request.node };
  await stores.traceStore.putRun(record);
  await stores.checkpointStore.save({
    checkpoint_id: `fork-${request.run_id}`,
    run_id: request.run_id,
    agent: agent.name,
    node: request.node,
    position: 'after',
    state: request.state,
    pending: { kind: 'interrupt', node: request.node, position: 'after' },
    seq: 0,
    usage: { steps: 0, llm_calls: 0, tokens: 0 },
    memory: {},
    created_at: now,
  });
}
