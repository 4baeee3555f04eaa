/**
 * A replay whose requests differ from the recording is infrastructure (issue 10): inside a
 * reflection loop's generator or a ReAct step it ends the node with LLM_BAD_RESPONSE
 * (`details.replay`), instead of becoming an invalid attempt or an observation.
 */
import { describe, expect, it } from 'vitest';
import { runAgent } from '../../src/graph/run-agent.js';
import { loadAgent } from '../../src/load-agent-with-scripts.js';
import type { AgentEvent } from '../../src/core/events.js';
import type { RunOptions } from '../../src/graph/run-types.js';
import { createReplayProvider } from '../../src/llm/replay.js';

const loopAgent = (task: string) => `
name: replayed-loop
settings:
  trace: { capture_payloads: true }
  llm: { provider: scripted, scripted: ['{"name": "Ann"}'] }
nodes:
  - name: think
    uses: reflection.loop
    with:
      generator: { action: llm.call, prompt: "${task}" }
      evaluator: { type: schema, schema: { type: object, required: [name] } }
      max_iterations: 3
    output: out
`;

const reactAgent = (goal: string) => `
name: replayed-react
settings:
  trace: { capture_payloads: true }
  llm: { provider: scripted, scripted: ['{"action": "final_answer", "action_input": {"answer": 4}}'] }
nodes:
  - name: think
    uses: reason.react
    with: { goal: "${goal}", tools: [math.calculate] }
    output: out
`;

async function run(text: string, options: RunOptions = {}) {
  const started = runAgent(loadAgent(text), {}, options);
  const events: AgentEvent[] = [];
  for await (const event of started) events.push(event);
  return { events, result: await started.result };
}

describe('replay mismatch inside composite actions', () => {
  it.each([
    ['reflection.loop generator', loopAgent],
    ['reason.react step', reactAgent],
  ])('%s: a differing request fails the node, it is not an attempt or observation', async (_label, agent) => {
    const recorded = await run(agent('first wording'));
    expect(recorded.result.status).toBe('completed');
    const provider = createReplayProvider(recorded.events);
    const replayed = await run(agent('second wording'), { llm: { providerFactory: () => provider } });
    expect(replayed.result.status).toBe('failed');
    expect(replayed.result.error).toMatchObject({ code: 'LLM_BAD_RESPONSE', node: 'think', details: { replay: true } });
    expect(replayed.events.some((event) => event.type === 'reflection_attempt')).toBe(false);
    expect(provider.mismatches).toHaveLength(1);
  });
});
