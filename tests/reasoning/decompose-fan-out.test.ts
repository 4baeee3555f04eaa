/**
 * Issue 12 point 6: `reason.decompose` against a model that always proposes 20 sub-problems, each
 * marked for further decomposition, at max_depth 5 (20^5 leaves uncapped). The run-wide cap on
 * sub-problems (MAX_SUB_PROBLEMS_PER_RUN) bounds the model calls at 2 + 2 × the cap, well under a
 * generous model-call budget, and the result says what was cut.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_SUB_PROBLEMS_PER_RUN } from '../../src/reasoning/reason-decompose.js';
import { startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.js';
import { agentText, runText } from './infrastructure-harness.js';

const greedyPlan = JSON.stringify({
  analysis: 'split it all',
  sub_problems: Array.from({ length: 20 }, (_, index) => ({
    id: index + 1,
    description: `part ${index + 1}`,
    decompose: true,
  })),
  synthesis_strategy: 'combine',
});

let server: MockOpenAI;
beforeAll(async () => {
  server = await startMockOpenAI({ replies: [greedyPlan] });
});
afterAll(() => server.close());

describe('reason.decompose fan-out', () => {
  it('a model that always splits 20 ways at every level is held to the run-wide sub-problem cap', async () => {
    const text = agentText(
      server.url,
      { uses: 'reason.decompose', with: { problem: 'everything', max_depth: 5 } },
      0,
      '  limits: { max_llm_calls: 10000, max_steps: 10 }',
    );
    const { result, events } = await runText(text);
    expect(result.status).toBe('completed');
    const calls = server.chatRequests.length;
    expect(calls).toBeLessThanOrEqual(2 + 2 * MAX_SUB_PROBLEMS_PER_RUN);
    expect(calls).toBeGreaterThan(MAX_SUB_PROBLEMS_PER_RUN); // it did real work up to the cap
    const out = result.state.out as {
      sub_problem_cap: { max: number; reached: boolean; dropped: number; decompositions_skipped: number };
      reasoning_trace: Array<{ step: string }>;
      sub_answers: unknown[];
    };
    expect(out.sub_problem_cap).toMatchObject({ max: MAX_SUB_PROBLEMS_PER_RUN, reached: true });
    expect(out.sub_problem_cap.dropped + out.sub_problem_cap.decompositions_skipped).toBeGreaterThan(0);
    expect(out.reasoning_trace.some((entry) => entry.step === 'sub_problem_cap_reached')).toBe(true);
    expect(out.sub_answers).toHaveLength(20);
    expect(events.filter((event) => event.type === 'llm_request')).toHaveLength(calls);
  });

  it('a plan within the cap is not cut and reports no cap', async () => {
    server.setReplies([
      JSON.stringify({
        analysis: 'a',
        sub_problems: [
          { id: 1, description: 'one' },
          { id: 2, description: 'two' },
        ],
      }),
      '{"answer": 1}',
      '{"answer": 2}',
      '{"final_answer": 3}',
    ]);
    server.requests.length = 0;
    const { result } = await runText(agentText(server.url, { uses: 'reason.decompose', with: { problem: 'small' } }));
    expect(result.state.out).toMatchObject({ final_answer: 3 });
    expect((result.state.out as Record<string, unknown>).sub_problem_cap).toBeUndefined();
    expect(server.chatRequests).toHaveLength(4);
  });
});
