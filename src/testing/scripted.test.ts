import { describe, expect, it } from 'vitest';
import { runAgentWithScript } from './scripted.js';

const yaml = `
name: classify
settings:
  llm: { provider: ollama, model: llama3.2 }
nodes:
  - name: ask
    uses: llm.call
    with:
      prompt: "Classify: {{ state.text }}"
    output: label
  - name: explain
    uses: llm.stream
    with:
      prompt: "Why {{ state.label.content }}?"
    output: why
`;

describe('runAgentWithScript', () => {
  it('runs an agent against scripted responses and returns events, state and calls', async () => {
    const { state, events, calls, result, model } = await runAgentWithScript(yaml, {
      input: { text: 'I love tea' },
      responses: ['positive', 'because of love'],
    });
    expect(result.status).toBe('completed');
    expect(state.label).toMatchObject({ content: 'positive', model: 'scripted' });
    expect((state.why as { content: string }).content).toBe('because of love');
    expect(calls.map((call) => call.messages.at(-1)!.content)).toEqual(['Classify: I love tea', 'Why positive?']);
    expect(
      events
        .filter((event) => event.type === 'answer_chunk')
        .map((event) => event.data.content)
        .join(''),
    ).toBe('because of love');
    expect(events.at(-1)!.type).toBe('done');
    expect(events.filter((event) => event.type === 'llm_request').map((event) => event.data.model)).toEqual([
      'scripted',
      'scripted',
    ]);
    expect(model.remaining).toBe(0);
  });

  it('a script that runs out fails the run with LLM_BAD_RESPONSE', async () => {
    const { result } = await runAgentWithScript(yaml, { input: { text: 'x' }, responses: ['only one'] });
    expect(result.status).toBe('failed');
    expect(result.error).toMatchObject({ code: 'LLM_BAD_RESPONSE', node: 'explain' });
  });

  it('accepts rules', async () => {
    const { state } = await runAgentWithScript(yaml, {
      input: { text: 'bad tea' },
      responses: { rules: [{ match: 'Classify', response: 'negative' }], default: 'no idea' },
    });
    expect(state.label).toMatchObject({ content: 'negative' });
    expect(state.why).toMatchObject({ content: 'no idea' });
  });
});
