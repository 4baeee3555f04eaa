/** The four reasoning examples run out of the box on the scripted model, through the engine. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runYaml } from '../engine/helpers.js';

const example = (name: string) =>
  readFileSync(path.resolve(import.meta.dirname, '../../examples', `${name}.yaml`), 'utf8');

describe('examples/reason-*.yaml', () => {
  it('reason-cot-math: thinking and the number 36', async () => {
    const { result } = await runYaml(example('reason-cot-math'));
    expect(result.status, JSON.stringify(result.error)).toBe('completed');
    expect(result.state['answer']).toBe(36);
    expect(String(result.state['thinking'])).toContain('0.15');
  });

  it('reason-react-tools: math.calculate and memory.* lead to 17.28, with ReAct events', async () => {
    const { result, events } = await runYaml(example('reason-react-tools'));
    expect(result.status, JSON.stringify(result.error)).toBe('completed');
    expect(result.state['answer']).toBe('The total with tax is 17.28');
    expect(result.state['stop_reason']).toBe('final_answer');
    const react = result.state['react'] as Record<string, unknown>;
    const observations = (react['steps'] as Array<Record<string, unknown>>).map((step) => step['observation']);
    expect(observations).toEqual([
      '{"result":16}',
      '{"stored":true}',
      '{"value":16}',
      '{"result":17.28}',
      'Goal achieved.',
    ]);
    const types = events.map((event) => event.type);
    for (const type of ['thinking', 'tool_start', 'tool_result', 'answer_chunk', 'answer', 'done'])
      expect(types).toContain(type);
    for (const event of events) expect(event.ts).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const starts = events.filter((event) => event.type === 'tool_start');
    expect(starts).toHaveLength(4);
    expect(starts.every((event) => event.data.autonomous === true)).toBe(true);
  });

  it('reason-self-correct: two rounds completed', async () => {
    const { result } = await runYaml(example('reason-self-correct'));
    expect(result.status, JSON.stringify(result.error)).toBe('completed');
    expect(result.state['rounds']).toBe(2);
    expect(String(result.state['text'])).toContain('thousands of years');
  });

  it('reason-decompose: three sub-answers and the synthesis', async () => {
    const { result } = await runYaml(example('reason-decompose'));
    expect(result.status, JSON.stringify(result.error)).toBe('completed');
    expect(result.state['answer']).toBe('The trip takes 4 hours.');
    expect(result.state['parts']).toBe(3);
  });
});

describe('reason.self_correct in the engine', () => {
  it('critic_prompt is rendered each round: {{ output }} is the current output (seed 004)', async () => {
    const yaml = `name: critic-output
settings:
  llm:
    provider: scripted
    scripted:
      - '{"output": "draft one"}'
      - '{"improved_output": "draft two"}'
      - '{"improved_output": "draft three"}'
nodes:
  - name: write
    uses: reason.self_correct
    with:
      task: write
      improvement_rounds: 2
      critic_prompt: "Review this text: {{ output }}"
    output: writing
`;
    const { result, events } = await runYaml(yaml, {}, { capturePayloads: true });
    expect(result.status).toBe('completed');
    const systems = events
      .filter((event) => event.type === 'llm_request')
      .map((event) => JSON.stringify((event.data['request'] as { messages: unknown[] }).messages[0]));
    expect(systems[1]).toContain('Review this text: draft one');
    expect(systems[2]).toContain('Review this text: draft two');
    expect((result.state['writing'] as Record<string, unknown>)['output']).toBe('draft three');
  });
});
