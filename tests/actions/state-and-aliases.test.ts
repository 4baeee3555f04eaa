/**
 * TEA's state-shaping actions (state.set, return, core.return), tools.list with count and filter,
 * and the reason.dspy.* fallbacks, run through real agents on the scripted model.
 */
import { describe, expect, it } from 'vitest';
import { loadError, runYaml } from '../engine/helpers.js';

describe('state.set / return / core.return', () => {
  it('state.set writes every rendered key; later nodes see them', async () => {
    const { result } = await runYaml(
      `
nodes:
  - name: init
    action: state.set
    with:
      prompt: "Hello {{ state.who }}"
      iteration: 0
      tags: [a, b]
  - name: bump
    action: state.set
    with:
      iteration: "{{ state.iteration + 1 }}"
`,
      { who: 'Ada' },
    );
    expect(result.status).toBe('completed');
    expect(result.state).toEqual({ who: 'Ada', prompt: 'Hello Ada', iteration: 1, tags: ['a', 'b'] });
  });

  it('return with `value` gives the value: an object merges, a scalar lands under output', async () => {
    const { result } = await runYaml(
      `
nodes:
  - name: merge
    uses: return
    with:
      value: { status: done, count: "{{ state.n * 2 }}" }
  - name: scalar
    uses: core.return
    with:
      value: "{{ state.n }}"
    output: final
`,
      { n: 21 },
    );
    expect(result.state).toEqual({ n: 21, status: 'done', count: 42, final: 21 });
  });

  it('core.return without `value` returns its keys (TEA learning examples)', async () => {
    const { result } = await runYaml(
      `
nodes:
  - name: finish
    action: core.return
    with: { status: success, final_response: "{{ state.answer }}" }
`,
      { answer: 'yes' },
    );
    expect(result.state).toMatchObject({ status: 'success', final_response: 'yes' });
  });

  it('return does not end the run: the next node still runs', async () => {
    const { result } = await runYaml(`
nodes:
  - { name: r, uses: return, with: { value: { a: 1 } } }
  - { name: after, uses: state.set, with: { b: 2 } }
`);
    expect(result.state).toEqual({ a: 1, b: 2 });
  });

  it('a key that is not a state key is INVALID_PARAMS at load, and `value` with other keys is refused', async () => {
    expect(loadError('nodes:\n  - name: s\n    uses: state.set\n    with: { "has space": 1 }\n').code).toBe(
      'INVALID_PARAMS',
    );
    expect(
      loadError('nodes:\n  - name: s\n    uses: core.return\n    with: { __proto__x: 1, "9lives": 2 }\n').code,
    ).toBe('INVALID_PARAMS');
    const both = await runYaml('nodes:\n  - name: r\n    uses: return\n    with: { value: 1, other: 2 }\n');
    expect(both.result.error?.code).toBe('INVALID_PARAMS');
    expect(both.result.error?.message).toContain('either `value` alone');
  });
});

describe('tools.list', () => {
  it('returns {tools, count}; count equals the number of tools and covers the new actions', async () => {
    const { result } = await runYaml('nodes:\n  - name: t\n    uses: tools.list\n');
    const tools = result.state.tools as Array<{ name: string; parameters?: Record<string, unknown> }>;
    expect(result.state.count).toBe(tools.length);
    const names = tools.map((tool) => tool.name);
    for (const name of [
      'llm.chat',
      'llm.embed',
      'state.set',
      'return',
      'core.return',
      'retry.loop',
      'web.scrape',
      'web.search',
      'reason.dspy.cot',
      'reason.dspy.react',
    ]) {
      expect(names).toContain(name);
    }
  });

  it('every new action has a description and a closed parameter schema', async () => {
    const { result } = await runYaml('nodes:\n  - name: t\n    uses: tools.list\n');
    const tools = result.state.tools as Array<{
      name: string;
      description: string;
      parameters?: Record<string, unknown>;
    }>;
    for (const name of [
      'llm.chat',
      'llm.embed',
      'retry.loop',
      'web.scrape',
      'web.search',
      'reason.dspy.cot',
      'reason.dspy.react',
      'tools.list',
    ]) {
      const tool = tools.find((candidate) => candidate.name === name)!;
      expect(tool.description.length, name).toBeGreaterThan(20);
      expect(tool.parameters?.additionalProperties, name).toBe(false);
    }
    // state.set / return take state keys: closed by a key pattern instead of a list.
    for (const name of ['state.set', 'return', 'core.return']) {
      const tool = tools.find((candidate) => candidate.name === name)!;
      expect(tool.parameters?.additionalProperties, name).toBe(false);
      expect(Object.keys(tool.parameters?.patternProperties as object), name).toHaveLength(1);
    }
  });

  it('`filter` keeps only the named actions, and count follows', async () => {
    const { result } = await runYaml(
      'nodes:\n  - name: t\n    uses: tools.list\n    with: { filter: [http.get, web.scrape, no.such] }\n',
    );
    expect((result.state.tools as Array<{ name: string }>).map((tool) => tool.name).sort()).toEqual([
      'http.get',
      'web.scrape',
    ]);
    expect(result.state.count).toBe(2);
  });

  it('a filter that is not a list of names is INVALID_PARAMS', async () => {
    const { result } = await runYaml('nodes:\n  - name: t\n    uses: tools.list\n    with: { filter: 3 }\n');
    expect(result.error?.code).toBe('INVALID_PARAMS');
  });
});

describe("reason.dspy.cot / reason.dspy.react (TEA's fallback without DSPy)", () => {
  it('reason.dspy.cot runs reason.cot and marks the result native_fallback; `signature` is accepted', async () => {
    const { result, events } = await runYaml(
      `
settings:
  llm: { provider: scripted, scripted: ['{"thinking": "2 and 2", "answer": 4}'] }
nodes:
  - name: solve
    action: reason.dspy.cot
    with:
      problem: "What is {{ state.q }}?"
      signature: "question -> thinking, answer"
      few_shot_examples: [{ problem: "1+1", thinking: "one and one", answer: 2 }]
`,
      { q: '2+2' },
    );
    expect(result.status).toBe('completed');
    expect(result.state).toMatchObject({
      thinking: '2 and 2',
      answer: 4,
      dspy_module: 'native_fallback',
      dspy_available: false,
      signature: 'question -> thinking, answer',
    });
    expect(events.filter((event) => event.type === 'llm_request')).toHaveLength(1);
  });

  it('reason.dspy.react runs the native ReAct loop with its tools', async () => {
    const { result } = await runYaml(`
settings:
  llm:
    provider: scripted
    scripted:
      - '{"thought": "compute", "action": "math.calculate", "action_input": {"expression": "6*7"}}'
      - '{"thought": "done", "action": "final_answer", "action_input": {"answer": "42"}}'
nodes:
  - name: act
    action: reason.dspy.react
    with: { goal: "multiply", tools: [math.calculate], max_steps: 3, signature: "goal -> result" }
`);
    expect(result.status).toBe('completed');
    expect(result.state).toMatchObject({
      final_answer: '42',
      dspy_module: 'native_fallback',
      signature: 'goal -> result',
    });
    expect(JSON.stringify(result.state.steps)).toContain('42');
  });

  it("DSPy-style few-shot examples ({question, thinking, answer}, as TEA's example writes them) reach the prompt as problems", async () => {
    const { result, events } = await runYaml(
      `
settings:
  llm: { provider: scripted, scripted: ['{"thinking": "t", "answer": 9}'] }
nodes:
  - name: solve
    action: reason.dspy.cot
    with:
      problem: "What is 3 squared?"
      signature: "question -> thinking, answer"
      few_shot_examples:
        - { question: "What is 20% of 50?", thinking: "50 * 0.2", answer: "10" }
`,
      {},
      { capturePayloads: true },
    );
    expect(result.status, JSON.stringify(result.error)).toBe('completed');
    const request = events.find((event) => event.type === 'llm_request')!.data.request as {
      messages: Array<{ content: string }>;
    };
    expect(request.messages[0]!.content).toContain('What is 20% of 50?');
    expect(request.messages[0]!.content).toContain('50 * 0.2');
  });

  it('the native load-time checks still apply through the alias', () => {
    const error = loadError(
      'nodes:\n  - name: s\n    uses: reason.dspy.cot\n    with: { problem: x, thinking_format: nonsense }\n',
    );
    expect(error.code).toBe('INVALID_PARAMS');
    expect(error.message).toContain('thinking_format');
  });
});
