/**
 * Load-time validation (prepare) of the reasoning actions, and the Rust TEA rows of
 * reference/tea-behaviour.md §6.4 that apply to tea-edge.
 */
import { describe, expect, it } from 'vitest';
import { AgentError } from '../../src/core/agent-error.js';
import type { ActionDefinition } from '../../src/core/action.js';
import { reasoningActions } from '../../src/reasoning/actions.js';
import { isValidToolName } from '../../src/reasoning/react/tool-table.js';
import { systemPrompt } from '../../src/reasoning/react/react-messages.js';
import { thinkingFormatInstructions } from '../../src/reasoning/thinking-formats.js';
import { parseModelOutput } from '../../src/reasoning/parse-output.js';
import renderCotPrompt from '../../src/prompts/cot.eta';
import renderCriticPrompt from '../../src/prompts/self-correct-critic.eta';
import { createFakeCompiler } from './fake-context.js';

function prepareError(name: string, params: Record<string, unknown>, extra: ActionDefinition[] = []): AgentError {
  const action = reasoningActions().find((candidate) => candidate.name === name)!;
  try {
    action.prepare!(params, createFakeCompiler(extra));
  } catch (error) {
    if (AgentError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a load-time error');
}

const prepareTable = (tools: unknown) => {
  const action = reasoningActions().find((candidate) => candidate.name === 'reason.react')!;
  return action.prepare!({ goal: 'g', tools }, createFakeCompiler()) as {
    table: { tools: Array<{ name: string; tier: number }> };
  };
};

describe('load-time validation', () => {
  it('an unknown thinking_format is INVALID_PARAMS', () => {
    expect(prepareError('reason.cot', { problem: 'p', thinking_format: 'vibes' }).code).toBe('INVALID_PARAMS');
  });

  it.each([
    ['not registered', ['web.search']],
    ['constructor', ['constructor']],
    ['__proto__', ['__proto__']],
    ['path-like', ['../x']],
    ['slash', ['a/b']],
    ['double dot', ['math..calculate']],
    ['leading digit', ['1tool']],
    ['whitespace', [' math.calculate']],
    ['object with a bad name', [{ name: 'toString' }]],
  ])('a listed tool that is %s is UNKNOWN_TOOL', (_name, tools) => {
    expect(prepareError('reason.react', { goal: 'g', tools }).code).toBe('UNKNOWN_TOOL');
  });

  it.each([
    ['bad tier', [{ name: 'math.calculate', tier: 4 }]],
    ['bad role', [{ name: 'math.calculate', requires_role: 'root' }]],
    ['unknown key', [{ name: 'math.calculate', execute: true }]],
    ['exact duplicate', ['math.calculate', 'math.calculate']],
    ['tools not a list', 'math.calculate'],
    ['templated tools', '{{ state.tools }}'],
  ])('%s is INVALID_PARAMS', (_name, tools) => {
    expect(prepareError('reason.react', { goal: 'g', tools }).code).toBe('INVALID_PARAMS');
  });

  it('two tools whose names differ only in case are INVALID_PARAMS', () => {
    const variant: ActionDefinition = { name: 'Math.calculate', description: 'variant', run: () => 1 };
    expect(
      prepareError('reason.react', { goal: 'g', tools: ['math.calculate', 'Math.calculate'] }, [variant]).code,
    ).toBe('INVALID_PARAMS');
  });

  it.each([
    ['reason.react', { goal: 'g', max_steps: -1 }],
    ['reason.react', { goal: 'g', max_steps: 'many' }],
    ['reason.react', { goal: 'g', tool_mode: 'magic' }],
    ['reason.react', { goal: 'g', on_limit: 'explode' }],
    ['reason.self_correct', { task: 't', improvement_rounds: 100 }],
    ['reason.decompose', { problem: 'p', max_depth: 9 }],
    ['reason.decompose', { problem: 'p', max_concurrency: 0 }],
  ])('%s %j is INVALID_PARAMS', (name, params) => {
    expect(prepareError(name, params).code).toBe('INVALID_PARAMS');
  });

  it('tool entries accept names and {name, tier, requires_role, description}; final_answer is implicit', () => {
    const prepared = prepareTable([
      'math.calculate',
      { name: 'memory.store', tier: 2, requires_role: 'operator', description: 'Save' },
      'final_answer',
    ]);
    expect(prepared.table.tools.map((tool) => [tool.name, tool.tier])).toEqual([
      ['math.calculate', 1],
      ['memory.store', 2],
    ]);
  });
});

describe('Rust TEA reasoning.rs rows (§6.4) that apply', () => {
  it.each([
    ['test_get_thinking_format_step_by_step', 'step_by_step', 'step by step'],
    ['test_get_thinking_format_pros_cons', 'pros_cons', 'pros and cons'],
    ['test_get_thinking_format_tree', 'tree', 'tree-structured'],
    ['test_get_thinking_format_first_principles', 'first_principles', 'first principles'],
  ])('%s', (_name, format, text) => {
    expect(thinkingFormatInstructions(format)!.toLowerCase()).toContain(text);
  });

  it('test_parse_json_response_valid / markdown_block / embedded_json', () => {
    expect(parseModelOutput('{"a": 1}')).toMatchObject({ ok: true, value: { a: 1 } });
    expect(parseModelOutput('```json\n{"a": 2}\n```\nmore text')).toMatchObject({ ok: true, value: { a: 2 } });
    expect(parseModelOutput('The result is {"a": 3} as shown')).toMatchObject({ ok: true, value: { a: 3 } });
  });

  it('test_parse_json_response_delimiter_based: the answer is the number 42', () => {
    const outcome = parseModelOutput('<thinking>Step 1: think. Step 2: more.</thinking>\n42');
    expect(outcome).toMatchObject({ ok: true, value: 42 });
    expect(outcome.ok && outcome.thinking).toContain('Step 1');
  });

  it('test_parse_json_response_empty / invalid_includes_raw_output', () => {
    expect(parseModelOutput('')).toMatchObject({ ok: false, error: expect.stringContaining('Empty response') });
    expect(parseModelOutput('just prose')).toMatchObject({ ok: false, error: expect.stringContaining('Raw output') });
  });

  it('test_validate_tool_name_valid', () => {
    for (const name of ['web.scrape', 'memory.store', 'action', 'myTool123']) expect(isValidToolName(name)).toBe(true);
  });

  it('test_validate_tool_name_path_traversal', () => {
    for (const name of ['../etc/passwd', 'foo/bar', '..\\windows\\system32', 'action..other'])
      expect(isValidToolName(name)).toBe(false);
  });

  it('test_validate_tool_name_invalid_pattern (our identifier pattern allows "-" inside a name, per docs/spec.md#11-top-level-keys)', () => {
    for (const name of ['123abc', '-action', '', 'a'.repeat(65), 'has space'])
      expect(isValidToolName(name)).toBe(false);
    expect(isValidToolName('action-name')).toBe(true);
  });

  it.each([
    ['test_reason_cot_missing_problem', 'reason.cot', 'problem'],
    ['test_reason_react_missing_goal', 'reason.react', 'goal'],
    ['test_reason_self_correct_missing_task', 'reason.self_correct', 'task'],
    ['test_reason_decompose_missing_problem', 'reason.decompose', 'problem'],
  ])('%s', (_name, action, field) => {
    const error = prepareError(action, {});
    expect(error.code).toBe('INVALID_PARAMS');
    expect(error.message).toContain(field);
  });

  it('test_reason_decompose_max_depth_exceeded (as: max_depth outside 0..5 at load)', () => {
    expect(prepareError('reason.decompose', { problem: 'p', max_depth: 6 }).message).toContain('max_depth');
  });

  it('test_cot_system_prompt_format', () => {
    const prompt = renderCotPrompt({ formatInstructions: thinkingFormatInstructions('step_by_step'), examples: [] });
    for (const text of ['thinking', 'answer', 'JSON']) expect(prompt).toContain(text);
  });

  it('test_react_system_prompt_format', () => {
    const table = prepareTable(['memory.store']).table as never;
    const prompt = systemPrompt(table, 'json');
    for (const text of ['ReAct agent', 'memory.store', 'final_answer', 'OBSERVATION', '"required":["key","value"]'])
      expect(prompt).toContain(text);
  });

  it('test_self_correct_critic_prompt_custom', () => {
    const prompt = renderCriticPrompt({ criticPrompt: 'Check for SQL injection' });
    expect(prompt).toContain('Check for SQL injection');
    expect(prompt).toContain('improved_output');
  });

  it('test_get_available_tools_default (final_answer is always offered)', () => {
    expect(systemPrompt(prepareTable([]).table as never, 'json')).toContain('final_answer');
  });
});

describe('prompt layout (Eta trims the newline after each tag; the templates compensate)', () => {
  it('few-shot examples render one field per line', () => {
    const prompt = renderCotPrompt({
      formatInstructions: 'F',
      examples: [
        { problem: 'P1', thinking: 'T1', answer: 'A1' },
        { problem: 'P2', answer: 'A2' },
      ],
    });
    expect(prompt).toContain('F\n\nRespond with exactly one JSON object');
    expect(prompt).toContain(
      'Example 1:\nProblem: P1\nThinking: T1\nAnswer: A1\n\nExample 2:\nProblem: P2\nAnswer: A2\n',
    );
  });

  it('each tool is on its own line with its parameters below', () => {
    const table = prepareTable(['math.calculate', 'json.query']).table as never;
    const lines = systemPrompt(table, 'json').split('\n');
    expect(lines.filter((line) => line.startsWith('- '))).toEqual([
      expect.stringMatching(/^- math\.calculate: /),
      expect.stringMatching(/^- json\.query: /),
      '- final_answer: give the final answer and stop.',
    ]);
    expect(lines.filter((line) => line.startsWith('  parameters (JSON Schema): {'))).toHaveLength(3);
  });
});
