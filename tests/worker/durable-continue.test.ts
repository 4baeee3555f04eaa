/**
 * When a run whose host died is continued, and when it is closed as failed instead
 * (worker/durable-continue.ts, shared by the run coordinator and `tea-edge serve`).
 */
import { describe, expect, it } from 'vitest';
import { loadAgent } from '../../src/load-agent-with-scripts.js';
import type { NodeCheckpoint } from '../../src/graph/run-types.js';
import {
  MAX_RESTARTS,
  noCheckpointError,
  recordAfterDone,
  whyNotContinue,
  type ResumePoint,
} from '../../worker/durable-continue.js';

const agent = loadAgent('name: two\nnodes:\n  - name: a\n    run: "return {}"\n  - name: b\n    run: "return {}"\n', {
  file: 'two.yaml',
});

function point(overrides: Partial<NodeCheckpoint> = {}, restarts = 0): ResumePoint {
  const checkpoint: NodeCheckpoint = {
    run_id: 'r1',
    agent: 'two',
    node: 'b',
    skip_interrupt_before: false,
    state: {},
    seq: 5,
    usage: { steps: 1, llm_calls: 0, tokens: 0 },
    memory: {},
    model_state: { scripted_calls: {} },
    budget_started_at: 1_000,
    run_created_at: '2026-01-01T00:00:00.000Z',
    ...overrides,
  };
  return { checkpoint, role: undefined, restarts };
}

describe('whyNotContinue', () => {
  it('continues a checkpoint of a served node, within its deadline and restarts', () => {
    expect(whyNotContinue(point({ deadline_at: 10_000 }), agent, 9_999, 'host')).toBeUndefined();
    expect(whyNotContinue(point({}, MAX_RESTARTS - 1), agent, 5_000, 'host')).toBeUndefined();
  });

  it('refuses a run past its max_duration_ms: BUDGET_EXCEEDED, stop reason max_duration_ms', () => {
    const refused = whyNotContinue(point({ deadline_at: 10_000 }), agent, 10_000, 'run coordinator');
    expect(refused?.stopReason).toBe('max_duration_ms');
    expect(refused?.error.code).toBe('BUDGET_EXCEEDED');
    expect(refused?.error.details).toEqual({ budget: 'max_duration_ms' });
    expect(refused?.error.message).toContain('while its run coordinator was down');
  });

  it(`refuses a run continued ${MAX_RESTARTS} times from the same checkpoint`, () => {
    const refused = whyNotContinue(point({}, MAX_RESTARTS), agent, 0, 'server process');
    expect(refused?.error.code).toBe('INTERNAL');
    expect(refused?.error.message).toContain(`continued ${MAX_RESTARTS} times at node 'b'`);
  });

  it('refuses a run whose agent or node is not served any more: NOT_FOUND naming which', () => {
    expect(whyNotContinue(point(), undefined, 0, 'host')?.error.message).toContain(
      "agent 'two' is not served any more",
    );
    const gone = whyNotContinue(point({ node: 'c' }), agent, 0, 'host');
    expect(gone?.error.code).toBe('NOT_FOUND');
    expect(gone?.error.message).toContain("has no node 'c' any more");
  });

  it('a run that died before its first checkpoint cannot be continued: INTERNAL saying so', () => {
    const error = noCheckpointError('r2', 'server process');
    expect(error.code).toBe('INTERNAL');
    expect(error.message).toContain('before its first node checkpoint');
  });
});

describe('recordAfterDone', () => {
  const running = {
    run_id: 'r3',
    agent: 'two',
    status: 'running' as const,
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
  };
  const done = {
    type: 'done' as const,
    run_id: 'r3',
    seq: 9,
    ts: '2026-01-01T00:00:05.000Z',
    data: {
      status: 'failed' as const,
      stop_reason: 'error' as const,
      state: {},
      error: { code: 'LLM_TIMEOUT', message: 'slow' },
    },
  };

  it("finishes a record left running by a host that died after the run's done event", () => {
    expect(recordAfterDone(running, done)).toEqual({
      ...running,
      status: 'failed',
      stop_reason: 'error',
      error: { code: 'LLM_TIMEOUT', message: 'slow' },
      updated_at: done.ts,
      event_count: 9,
    });
  });

  it('leaves a final record, and a last event that is not done, alone', () => {
    expect(recordAfterDone({ ...running, status: 'completed' }, done)).toBeUndefined();
    expect(
      recordAfterDone(running, { ...done, type: 'node_end', data: { update: {}, duration_ms: 1 } } as never),
    ).toBeUndefined();
  });
});
