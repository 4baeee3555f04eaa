/**
 * The one resume every host calls (src/graph/resume-run.ts): findResumable says why a run cannot
 * be resumed, resumeRun picks the run's own agent, and a store that fails is STORAGE_ERROR.
 */
import { describe, expect, it } from 'vitest';
import { AgentError } from '../../src/core/agent-error.js';
import { loadAgent } from '../../src/load-agent-with-scripts.js';
import { findResumable, resumeRun } from '../../src/graph/resume-run.js';
import { runAgent } from '../../src/graph/run-agent.js';
import { createMemoryStores } from '../../src/storage/memory-store.js';

const PAUSING =
  'name: pausing\nconfig:\n  interrupt_before: [two]\nnodes:\n  - name: one\n    run: "return { a = 1 }"\n  - name: two\n    run: "return { b = 2 }"\n';
const PLAIN = 'name: plain\nnodes:\n  - name: one\n    run: "return { a = 1 }"\n';

async function rejection(promise: Promise<unknown>): Promise<AgentError> {
  try {
    await promise;
  } catch (error) {
    if (AgentError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}

describe('resume in one place', () => {
  it('findResumable: NOT_FOUND for an unknown run, CONFLICT for a finished one, the checkpoint for an interrupted one', async () => {
    const stores = createMemoryStores();
    expect((await rejection(findResumable('nobody', stores))).code).toBe('NOT_FOUND');
    const done = await runAgent(loadAgent(PLAIN), {}, stores).result;
    const finished = await rejection(findResumable(done.run_id, stores));
    expect(finished).toMatchObject({ code: 'CONFLICT', message: expect.stringContaining('completed') });
    const paused = await runAgent(loadAgent(PAUSING), {}, stores).result;
    expect((await findResumable(paused.run_id, stores)).node).toBe('two');
  });

  it('resumeRun continues the run with the agent it belongs to, and refuses an agent that is not served', async () => {
    const stores = createMemoryStores();
    const pausing = loadAgent(PAUSING);
    const paused = await runAgent(pausing, {}, stores).result;
    const missing = await rejection(resumeRun(() => undefined, paused.run_id, {}, stores));
    expect(missing).toMatchObject({ code: 'NOT_FOUND', message: expect.stringContaining("agent 'pausing'") });
    const asked: string[] = [];
    const run = await resumeRun(
      (name) => (asked.push(name), pausing),
      paused.run_id,
      { state_update: { c: 3 } },
      stores,
    );
    expect(await run.result).toMatchObject({ status: 'completed', state: { a: 1, b: 2, c: 3 } });
    expect(asked).toEqual(['pausing']);
    // The checkpoint was claimed and the run finished: a second resume has nothing to continue.
    expect((await rejection(resumeRun(() => pausing, paused.run_id, {}, stores))).code).toBe('CONFLICT');
  });

  it('a checkpoint store that fails is STORAGE_ERROR, not "no such run"', async () => {
    const stores = createMemoryStores();
    const broken = { ...stores.checkpointStore, loadLatest: async () => Promise.reject(new Error('disk gone')) };
    expect((await rejection(findResumable('any', { checkpointStore: broken }))).code).toBe('STORAGE_ERROR');
  });
});
