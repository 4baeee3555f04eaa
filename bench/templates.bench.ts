/**
 * Template rendering speed: renders per second of a 3-variable prompt from a template parsed
 * once, against plain JS string concatenation of the same prompt (the baseline). Target ≥ 100,000/s.
 * Measured twice: plain `{{ path }}` reads (served by the fast path) and the same prompt with
 * filters (served by the interpreter).
 */
import { compileTemplate } from '../src/templates/index.js';
import type { BenchResult } from './bench-result.js';

const PROMPT =
  'You are {{ variables.persona }}. Answer the question below in {{ state.language }}.\n\nQuestion: {{ state.question }}\n';
/** The same prompt with filters, so it goes through the interpreter rather than the plain-path fast path. */
const FILTERED_PROMPT =
  "You are {{ variables.persona | trim }}. Answer the question below in {{ state.language | default('English') }}.\n\nQuestion: {{ state.question | trim }}\n";

/** A run state of realistic size: the prompt reads 2 of its keys. */
function sampleScope(index: number): Record<string, unknown> {
  return {
    state: {
      question: `What is the capital of country number ${index}?`,
      language: 'English',
      history: Array.from({ length: 20 }, (_, turn) => ({
        role: turn % 2 ? 'assistant' : 'user',
        content: `turn ${turn}`,
      })),
      draft: { text: 'x'.repeat(500), score: 0.5, tags: ['a', 'b', 'c'] },
    },
    variables: { persona: 'a concise geography tutor', max_steps: 5 },
    settings: { llm: { model: 'scripted' } },
    secrets: {},
  };
}

function concatenate(scope: Record<string, unknown>): string {
  const state = scope.state as Record<string, unknown>;
  const variables = scope.variables as Record<string, unknown>;
  return (
    'You are ' +
    String(variables.persona) +
    '. Answer the question below in ' +
    String(state.language) +
    '.\n\nQuestion: ' +
    String(state.question) +
    '\n'
  );
}

/** Runs `work` for about `milliseconds` (after a warm-up) and returns calls per second. */
function measure(work: (index: number) => unknown, milliseconds: number): number {
  let sink = 0;
  for (let index = 0; index < 5_000; index++) sink += String(work(index)).length;
  let calls = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < milliseconds) {
    for (let index = 0; index < 1_000; index++) sink += String(work(calls + index)).length;
    calls += 1_000;
    elapsed = performance.now() - start;
  }
  if (sink < 0) throw new Error('unreachable');
  return (calls / elapsed) * 1000;
}

export async function run(): Promise<BenchResult[]> {
  const template = compileTemplate(PROMPT, { node: 'bench', field: 'with.prompt' });
  const scopes = Array.from({ length: 64 }, (_, index) => sampleScope(index));
  if (template.render(scopes[3]!) !== concatenate(scopes[3]!)) throw new Error('template and baseline disagree');
  const filtered = compileTemplate(FILTERED_PROMPT, { node: 'bench', field: 'with.prompt' });
  if (filtered.render(scopes[3]!) !== concatenate(scopes[3]!))
    throw new Error('filtered template and baseline disagree');
  const renders = measure((index) => template.render(scopes[index & 63]!), 2_000);
  const baseline = measure((index) => concatenate(scopes[index & 63]!), 1_000);
  const interpreted = measure((index) => filtered.render(scopes[index & 63]!), 2_000);
  return [
    {
      name: 'templates.render_3_variable_prompt',
      value: Math.round(renders),
      unit: 'renders/s',
      baseline_value: Math.round(baseline),
      ratio: Number((renders / baseline).toFixed(4)),
    },
    {
      name: 'templates.render_3_variable_prompt_with_filters',
      value: Math.round(interpreted),
      unit: 'renders/s',
      baseline_value: Math.round(baseline),
      ratio: Number((interpreted / baseline).toFixed(4)),
    },
  ];
}
