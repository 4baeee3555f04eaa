/**
 * The run reviewer (docs/spec.md#54-run-review-the-reflector-seed-002, seed 002): task and plan evaluation, error categories and the
 * replan rule, slow nodes against earlier runs, empty outputs, failure patterns within a run and
 * across stored runs, LLM suggestions, learned insights, and the reflection.review action.
 */
import { describe, expect, it } from 'vitest';
import type { ActionDefinition } from '../../src/core/action.js';
import { AgentError } from '../../src/core/agent-error.js';
import { reviewRun } from '../../src/reflection/review/review-run.js';
import { createMemoryStores } from '../../src/storage/memory-store.js';
import { load, loadError, run } from './support.js';

function failing(name: string, code: string, message: string): ActionDefinition {
  return {
    name,
    description: 'fails',
    run: () => {
      throw new AgentError(code as never, message);
    },
  };
}

const actions = [
  failing('test.timeout', 'LLM_TIMEOUT', 'request timed out after 30 s'),
  failing('test.denied', 'ACTION_FAILED', 'access denied to /secret'),
  failing('test.invalid', 'ACTION_FAILED', 'invalid parameter "x"'),
  { name: 'test.empty', description: 'nothing', run: () => ({ text: '' }) } as ActionDefinition,
];

function agent(nodes: Array<Record<string, unknown>>, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ name: 'reviewed', ...extra, nodes });
}

/** A clock that advances `step` ms per reading, so node durations are deterministic. */
function clock(step: number) {
  let now = Date.parse('2026-11-22T10:00:00.000Z');
  return () => (now += step);
}

describe('reviewRun', () => {
  it('a clean run: success, full success rate, no replan', async () => {
    const stores = createMemoryStores();
    const { result } = await run(
      agent([
        { name: 'a', run: 'return {x = 1}' },
        { name: 'b', run: 'return {y = 2}' },
      ]),
      {},
      stores,
    );
    const review = await reviewRun({ traceStore: stores.traceStore, runId: result.run_id });
    expect(review).toMatchObject({ success: true, should_replan: false, status: 'completed', agent: 'reviewed' });
    expect(review.plan).toMatchObject({ plan_id: result.run_id, success: true, success_rate: 1 });
    expect(review.tasks.map((task) => [task.task_id, task.success])).toEqual([
      ['a#1', true],
      ['b#1', true],
    ]);
    expect(review.failure_patterns).toEqual([]);
  });

  it('categorises failures with seed 002 keywords and its replan rule; detects repeated and sequential failures', async () => {
    const stores = createMemoryStores();
    const nodes = [
      { name: 'fetch1', uses: 'test.timeout', on_error: 'graceful' },
      { name: 'fetch2', uses: 'test.timeout', on_error: 'graceful' },
      { name: 'read', uses: 'test.denied', on_error: 'graceful' },
      { name: 'check', uses: 'test.invalid', on_error: 'graceful' },
      { name: 'ok', run: 'return {done = true}' },
    ];
    const { result } = await run(agent(nodes), {}, { ...stores, actions });
    const review = await reviewRun({ traceStore: stores.traceStore, runId: result.run_id });
    const byNode = Object.fromEntries(review.tasks.map((task) => [task.node, task]));
    expect(byNode.fetch1).toMatchObject({
      success: false,
      error_category: 'timeout',
      should_replan: true,
      suggestions: ['Increase timeout or break into smaller tasks'],
    });
    expect(byNode.read).toMatchObject({
      error_category: 'permission',
      should_replan: false,
      suggestions: ['Check required permissions in config'],
    });
    expect(byNode.check).toMatchObject({ error_category: 'validation', should_replan: false });
    expect(byNode.ok).toMatchObject({ success: true });
    expect(review.plan).toMatchObject({ success: false, success_rate: 0.2, should_replan: true });
    const types = review.failure_patterns.map((pattern) => pattern.pattern_type);
    expect(types).toEqual(expect.arrayContaining(['repeated_errors', 'sequential_failures', 'low_success_rate']));
    const repeated = review.failure_patterns.find((pattern) => pattern.pattern_type === 'repeated_errors')!;
    expect(repeated).toMatchObject({
      occurrences: 2,
      affected_tasks: ['fetch1#1', 'fetch2#1'],
      suggested_fix: 'Increase timeout or break into smaller tasks',
      scope: 'run',
    });
    expect(typeof repeated.detected_at).toBe('string');
    expect(review.failure_patterns.find((pattern) => pattern.pattern_type === 'sequential_failures')!.occurrences).toBe(
      4,
    );
  });

  it('applies criteria: min_success_rate and require_all_tasks_complete', async () => {
    const stores = createMemoryStores();
    const nodes = [
      { name: 'bad', uses: 'test.invalid', on_error: 'graceful' },
      ...['a', 'b', 'c', 'd'].map((name) => ({ name, run: 'return {v = 1}' })),
    ];
    const { result } = await run(agent(nodes), {}, { ...stores, actions });
    const strict = await reviewRun({ traceStore: stores.traceStore, runId: result.run_id });
    expect(strict.plan.success_rate).toBe(0.8);
    expect(strict.success).toBe(false);
    expect(strict.issues.some((issue) => issue.includes('did not complete'))).toBe(true);
    const lenient = await reviewRun({
      traceStore: stores.traceStore,
      runId: result.run_id,
      criteria: { require_all_tasks_complete: false },
    });
    expect(lenient.success).toBe(true);
    const demanding = await reviewRun({
      traceStore: stores.traceStore,
      runId: result.run_id,
      criteria: { require_all_tasks_complete: false, min_success_rate: 0.9 },
    });
    expect(demanding.success).toBe(false);
    await expect(
      reviewRun({ traceStore: stores.traceStore, runId: result.run_id, criteria: { min_success_rate: 2 } }),
    ).rejects.toMatchObject({ code: 'INVALID_PARAMS' });
  });

  it('flags a failed run and its fatal error when all tasks must complete', async () => {
    const stores = createMemoryStores();
    const { result } = await run(
      agent([
        { name: 'a', run: 'return {}' },
        { name: 'boom', uses: 'test.timeout' },
      ]),
      {},
      { ...stores, actions },
    );
    expect(result.status).toBe('failed');
    const review = await reviewRun({ traceStore: stores.traceStore, runId: result.run_id });
    expect(review.success).toBe(false);
    expect(review.tasks.find((task) => task.node === 'boom')).toMatchObject({
      success: false,
      error_category: 'timeout',
      should_replan: true,
    });
    expect(review.issues.some((issue) => issue.includes("status 'failed'"))).toBe(true);
  });

  it('flags slow nodes against the median of earlier runs, and empty outputs', async () => {
    const stores = createMemoryStores();
    const yaml = agent([
      { name: 'work', run: 'return {v = 1}' },
      { name: 'blank', uses: 'test.empty' },
    ]);
    for (let index = 0; index < 3; index += 1) await run(yaml, {}, { ...stores, actions, now: clock(1) });
    const slow = await run(yaml, {}, { ...stores, actions, now: clock(10) });
    const review = await reviewRun({ traceStore: stores.traceStore, runId: slow.result.run_id });
    expect(review.compared_runs).toBe(3);
    const work = review.tasks.find((task) => task.node === 'work')!;
    expect(work.slow).toBe(true);
    expect(work.issues.join(' ')).toContain('median');
    expect(review.tasks.find((task) => task.node === 'blank')).toMatchObject({ success: true, empty_output: true });
    const relaxed = await reviewRun({
      traceStore: stores.traceStore,
      runId: slow.result.run_id,
      criteria: { max_execution_time_multiplier: 100, check_output_quality: false },
    });
    expect(relaxed.tasks.every((task) => task.slow !== true && task.empty_output !== true)).toBe(true);
  });

  it('detects failure patterns across stored runs of the same agent', async () => {
    const stores = createMemoryStores();
    const flaky = agent([
      { name: 'fetch', uses: 'test.timeout', on_error: 'graceful' },
      { name: 'end', run: 'return {}' },
    ]);
    for (let index = 0; index < 2; index += 1) await run(flaky, {}, { ...stores, actions });
    const failingRun = agent([{ name: 'fetch', uses: 'test.timeout' }]);
    await run(failingRun, {}, { ...stores, actions });
    const last = await run(failingRun, {}, { ...stores, actions });
    const review = await reviewRun({ traceStore: stores.traceStore, runId: last.result.run_id });
    const history = review.failure_patterns.filter((pattern) => pattern.scope === 'history');
    expect(history.find((pattern) => pattern.pattern_type === 'repeated_errors')).toMatchObject({
      occurrences: 4,
      description: expect.stringContaining("Node 'fetch' failed in 4 of the last 4 runs"),
    });
    expect(history.find((pattern) => pattern.pattern_type === 'low_success_rate')).toMatchObject({ occurrences: 2 });
  });

  it('asks an LLM for suggestions when given one, and survives its failure', async () => {
    const stores = createMemoryStores();
    const { result } = await run(
      agent([{ name: 'x', uses: 'test.invalid', on_error: 'graceful' }]),
      {},
      { ...stores, actions },
    );
    const prompts: string[] = [];
    const review = await reviewRun({
      traceStore: stores.traceStore,
      runId: result.run_id,
      llm: async (prompt) => (prompts.push(prompt), '```json\n{"suggestions": ["Validate x before calling"]}\n```'),
    });
    expect(review.llm_suggestions).toEqual(['Validate x before calling']);
    expect(review.plan.suggestions).toContain('Validate x before calling');
    expect(prompts[0]).toContain("agent 'reviewed'");
    const broken = await reviewRun({
      traceStore: stores.traceStore,
      runId: result.run_id,
      llm: async () => {
        throw new Error('model offline');
      },
    });
    expect(broken.issues.some((issue) => issue.includes('model offline'))).toBe(true);
  });

  it('learn_from_episode stores insights that later reviews return', async () => {
    const stores = createMemoryStores();
    const yaml = agent([{ name: 'fetch', uses: 'test.timeout', on_error: 'graceful' }]);
    const first = await run(yaml, {}, { ...stores, actions });
    const learned = await reviewRun({ traceStore: stores.traceStore, runId: first.result.run_id, learn: true });
    expect(learned.learned).toBeGreaterThan(0);
    const later = await reviewRun({ traceStore: stores.traceStore, runId: first.result.run_id });
    expect(later.insights).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'node_failure', node: 'fetch', error_category: 'timeout', occurrences: 1 }),
      ]),
    );
    await reviewRun({ traceStore: stores.traceStore, runId: first.result.run_id, learn: true });
    const second = await run(yaml, {}, { ...stores, actions });
    const again = await reviewRun({ traceStore: stores.traceStore, runId: second.result.run_id, learn: true });
    expect(again.insights.find((insight) => insight.kind === 'node_failure')).toMatchObject({ occurrences: 2 });
    expect(await stores.traceStore.getInsights('other-agent')).toEqual([]);
  });

  it('an unknown run is NOT_FOUND', async () => {
    await expect(reviewRun({ traceStore: createMemoryStores().traceStore, runId: 'nope' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });
});

describe('reflection.review action', () => {
  it('reviews the current run so far with criteria from settings.reflection', async () => {
    const stores = createMemoryStores();
    const yaml = agent(
      [
        { name: 'bad', uses: 'test.invalid', on_error: 'graceful' },
        { name: 'good', run: 'return {v = 1}' },
        { name: 'review', uses: 'reflection.review', output: 'review' },
      ],
      { settings: { reflection: { min_success_rate: 0.5, require_all_tasks_complete: false } } },
    );
    const { result } = await run(yaml, {}, { ...stores, actions });
    const review = result.state.review as Record<string, unknown>;
    // The run is in progress: its status is not an issue; every node before the review counts.
    expect(review).toMatchObject({
      run_id: result.run_id,
      status: 'running',
      success: true,
      criteria: { min_success_rate: 0.5, require_all_tasks_complete: false },
    });
    const nodes = (review.tasks as Array<{ node: string }>).map((task) => task.node);
    expect(nodes).toEqual(['bad', 'good']);
  });

  it('reviews a stored run by id, with an LLM suggestion from the agent model and learning', async () => {
    const stores = createMemoryStores();
    const earlier = await run(
      agent([{ name: 'fetch', uses: 'test.timeout', on_error: 'graceful' }]),
      {},
      { ...stores, actions },
    );
    const reviewer = JSON.stringify({
      name: 'reviewer',
      settings: { llm: { provider: 'scripted', scripted: ['{"suggestions": ["Raise the timeout"]}'] } },
      nodes: [
        {
          name: 'review',
          uses: 'reflection.review',
          output: 'review',
          with: { run_id: '{{ state.target }}', enable_llm_reflection: true, learn_from_episode: true },
        },
      ],
    });
    const { result } = await run(reviewer, { target: earlier.result.run_id }, stores);
    expect(result.state.review).toMatchObject({
      run_id: earlier.result.run_id,
      agent: 'reviewed',
      llm_suggestions: ['Raise the timeout'],
    });
    expect((await stores.traceStore.getInsights('reviewed')).length).toBeGreaterThan(0);
  });

  it('fails with STORAGE_ERROR without a trace store, and checks criteria at load', async () => {
    const { result } = await run(agent([{ name: 'review', uses: 'reflection.review' }]));
    expect(result.error?.code).toBe('STORAGE_ERROR');
    expect(
      loadError(agent([{ name: 'review', uses: 'reflection.review', with: { min_success_rate: 'high' } }])).code,
    ).toBe('INVALID_PARAMS');
    expect(() =>
      load(agent([{ name: 'review', uses: 'reflection.review', with: { criteria: { min_success_rate: 0.9 } } }])),
    ).not.toThrow();
  });
});
