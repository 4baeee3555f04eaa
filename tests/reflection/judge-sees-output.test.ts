/**
 * Issue 10 point 5: the LLM judge always sees what it judges. Whether the prompt is wrapped with
 * the output is decided from the parsed template (does it read `output`, `output_to_evaluate` or
 * `state.reflection_output`?), not from the words in it.
 */
import { describe, expect, it } from 'vitest';
import { templateShowsOutput } from '../../src/reflection/evaluators/template-references.js';
import { agentYaml, run } from './support.js';

describe('templateShowsOutput', () => {
  it.each([
    '{{ output }}',
    'Judge this: {{ output_to_evaluate | upper }}',
    '{{ state.reflection_output }}',
    "{{ state['reflection_output'] }}",
    '{% for line in output %}- {{ line }}\n{% endfor %}',
    '{% if output is defined %}{{ output | tojson }}{% endif %}',
    '{% set shown = output %}Here: {{ shown }}',
    '{{ "x" if iteration > 1 else output }}',
    '{{ {"o": output} | tojson }}',
    '{{ state.items[output] }}',
  ])('reads the output: %s', (source) => {
    expect(templateShowsOutput(source)).toBe(true);
  });

  it.each([
    'Is this a good output?',
    'Check the output_to_evaluate carefully. Is it reflection_output-worthy?',
    '{# output #}Is it polite?',
    '{{ state.output }}',
    '{{ state.topic }} — is the output on topic?',
    '{{ "output" }}',
    '{% for output_line in state.lines %}{{ output_line }}{% endfor %}',
    '{{ iteration | default("output") }}',
  ])('does not read the output: %s', (source) => {
    expect(templateShowsOutput(source)).toBe(false);
  });
});

describe('the judge prompt', () => {
  const judged = async (prompt: string) => {
    const yaml = agentYaml(
      'reflection.evaluate',
      { data: 'CANDIDATE-42', evaluator: { type: 'llm', prompt } },
      { initial_state: { topic: 'tea' } },
    );
    const { result, calls } = await run(yaml, {}, { responses: ['{"valid": true, "score": 1}'] });
    expect(result.status).toBe('completed');
    return calls[0]!.request.messages.at(-1)!.content as string;
  };
  const count = (text: string, part: string) => text.split(part).length - 1;

  it('"Is this a good output?" shows the output to the judge (wrapped)', async () => {
    const message = await judged('Is this a good output?');
    expect(message).toContain('Is this a good output?');
    expect(count(message, 'CANDIDATE-42')).toBe(1);
  });

  it('a prompt that reads the output is used as written, not wrapped a second time', async () => {
    const message = await judged('Rate this answer: <<{{ output }}>>');
    expect(message).toBe('Rate this answer: <<CANDIDATE-42>>');
  });

  it('a prompt that reads only state.output (not the candidate) is wrapped', async () => {
    const message = await judged('Topic {{ state.topic }}: is the output on topic?');
    expect(message).toContain('Topic tea: is the output on topic?');
    expect(count(message, 'CANDIDATE-42')).toBe(1);
  });
});
