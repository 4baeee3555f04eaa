/**
 * Issue 10 point 1 for the reflection actions, over real HTTP against the mock OpenAI server: a
 * generator, judge or corrector whose model server is down, answers 404 or 500, or breaks the
 * connection mid-answer ends the node with its typed LLM_* error; it is never an "invalid
 * attempt" in `reflection_errors`. `on_error: graceful` records it and the run goes on. An answer
 * that does not parse, fails the schema or is rejected by the judge still counts as an attempt.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.js';
import {
  agentText,
  closedUrl,
  defineInfrastructureTests,
  runText,
  type NodeSpec,
} from '../reasoning/infrastructure-harness.js';

let server: MockOpenAI;
beforeAll(async () => {
  server = await startMockOpenAI({ chunkSize: 3 });
});
afterAll(() => server.close());
beforeEach(() => {
  server.setFault();
  server.setReplies(['{"valid": true, "score": 1}']);
  server.requests.length = 0;
});

const objectSchema = { type: 'object', required: ['name'], properties: { name: { type: 'string' } } };

const NODES: Record<string, NodeSpec> = {
  'reflection.loop (generator)': {
    uses: 'reflection.loop',
    with: {
      generator: { action: 'llm.call', prompt: 'Give a name as JSON' },
      evaluator: { type: 'schema', schema: objectSchema },
      max_iterations: 3,
    },
  },
  'reflection.loop (streamed generator)': {
    uses: 'reflection.loop',
    with: {
      generator: { action: 'llm.stream', prompt: 'Give a name as JSON' },
      evaluator: { type: 'schema', schema: objectSchema },
      max_iterations: 3,
    },
  },
  'reflection.loop (judge)': {
    uses: 'reflection.loop',
    with: { generator: { run: 'return "a candidate"' }, evaluator: { type: 'llm' }, max_iterations: 3 },
  },
  'reflection.evaluate (LLM judge)': {
    uses: 'reflection.evaluate',
    with: { data: 'some output', evaluator: { type: 'llm' } },
  },
  'reflection.correct (LLM corrector)': {
    uses: 'reflection.correct',
    with: { data: 'x', errors: ['bad'], prompt: 'Fix it' },
  },
};

describe('infrastructure failures fail the node (reflection actions, real HTTP)', () => {
  for (const [label, node] of Object.entries(NODES)) {
    defineInfrastructureTests(
      label,
      node,
      () => server,
      ({ result, events }) => {
        // No attempt was recorded for a model that did not answer.
        expect(events.filter((event) => event.type === 'reflection_attempt')).toHaveLength(0);
        expect(result.state.reflection_errors).toBeUndefined();
      },
    );
  }

  it('a corrector whose server answers 500 ends the loop after the first (content-invalid) attempt', async () => {
    server.setReplies(['{"nope": 1}']);
    const down = await closedUrl();
    const { result, events } = await runText(
      agentText(server.url, {
        uses: 'reflection.loop',
        with: {
          generator: { action: 'llm.call', prompt: 'Give a name' },
          evaluator: { type: 'schema', schema: objectSchema },
          corrector: { action: 'llm.call', prompt: 'Fix', api_base: down },
          max_iterations: 3,
        },
      }),
    );
    expect(result.error).toMatchObject({ code: 'LLM_UNAVAILABLE', node: 'think' });
    expect(events.filter((event) => event.type === 'reflection_attempt')).toHaveLength(1);
    expect(server.chatRequests).toHaveLength(1);
  });
});

describe('content failures stay attempts (reflection actions, real HTTP)', () => {
  it('an answer that does not parse, then one that fails the schema, then a valid one: three attempts', async () => {
    server.setReplies(['Sorry, no JSON today.', '{"title": "no name"}', '{"name": "Ann"}']);
    const { result, events } = await runText(agentText(server.url, NODES['reflection.loop (generator)']!));
    expect(result.status).toBe('completed');
    const attempts = events.filter((event) => event.type === 'reflection_attempt').map((event) => event.data);
    expect(attempts.map((attempt) => attempt.valid)).toEqual([false, false, true]);
    expect((attempts[0]!.errors as Array<{ type: string }>)[0]!.type).toBe('parse_error');
    expect(result.state.out).toMatchObject({ valid: true, output: { name: 'Ann' }, iterations: 3 });
  });

  it('a judge that rejects is an invalid attempt, not a failure', async () => {
    server.setReplies(['{"valid": false, "score": 0.1, "reason": "too vague"}']);
    const { result } = await runText(
      agentText(server.url, { uses: 'reflection.evaluate', with: { data: 'some output', evaluator: { type: 'llm' } } }),
    );
    expect(result.status).toBe('completed');
    expect(result.state.out).toMatchObject({ valid: false, score: 0.1 });
  });
});
