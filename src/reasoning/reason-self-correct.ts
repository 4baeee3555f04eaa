/**
 * `reason.self_correct` (docs/spec.md#64-reasonself_correct): generate, then critique-and-improve for a number of rounds.
 * A round whose critique fails or cannot be parsed is recorded (trace + `skipped_rounds`) and
 * skipped; `rounds_completed` counts only the rounds that completed. Outputs may be any JSON.
 */
import type { ActionContext, ActionDefinition } from '../core/action.js';
import renderGeneratePrompt from '../prompts/self-correct-generate.eta';
import renderCriticPrompt from '../prompts/self-correct-critic.eta';
import {
  callModel,
  checkIntegerAtLoad,
  compileParams,
  failureResult,
  integerParam,
  LLM_KEYS,
  llmOptions,
  renderParams,
  reportedModel,
  rethrowControl,
  type CompiledParams,
} from './action-support.js';
import { messageOf } from '../util/message-of.js';
import { llmProperties } from '../spec/parameter-shapes.js';
import { parseModelOutput } from './parse-output.js';
import { createReasoningTrace, nowSeconds, truncateText } from './reasoning-trace.js';
import { textOf } from '../util/text-of.js';
import { isPlainObject } from '../util/plain-object.js';
import { cutText } from '../util/cut-text.js';

const DEFAULT_CRITIC_PROMPT = 'Identify any issues with correctness, clarity, completeness, and style.';
const MAX_ROUNDS = 20;

/** The `reason.self_correct` action. */
export function reasonSelfCorrect(): ActionDefinition<CompiledParams> {
  return {
    name: 'reason.self_correct',
    description:
      'Generate an output, then critique and improve it for a number of rounds. Returns {output, improvement_history, rounds_completed}.',
    parameters: {
      type: 'object',
      properties: {
        task: { type: 'string' },
        improvement_rounds: { type: 'integer', minimum: 0, maximum: MAX_ROUNDS },
        critic_prompt: { type: 'string' },
        generator_model: { type: 'string' },
        critic_model: { type: 'string' },
        ...llmProperties(LLM_KEYS),
      },
      required: ['task'],
      additionalProperties: false,
    },
    prepare(raw, compiler) {
      const params = compileParams(raw, compiler, ['task']);
      checkIntegerAtLoad(params, compiler, 'improvement_rounds', 0, MAX_ROUNDS);
      return params;
    },
    run: (compiled, context) => {
      // critic_prompt is rendered each round, so `{{ output }}` (seed 004) is the current output.
      const { critic_prompt: criticTemplate, ...rest } = compiled;
      const criticPrompt = (current: unknown, round: number, task: unknown): unknown =>
        criticTemplate?.render(context.scope({ output: current, round, iteration: round, task }));
      return runSelfCorrect(renderParams(rest, context), context, criticPrompt);
    },
  };
}

type CriticPromptRenderer = (current: unknown, round: number, task: unknown) => unknown;

async function runSelfCorrect(
  params: Record<string, unknown>,
  context: ActionContext,
  renderCritic: CriticPromptRenderer,
): Promise<Record<string, unknown>> {
  const trace = createReasoningTrace();
  try {
    const task = textOf(params['task'] ?? '');
    const rounds = integerParam(params['improvement_rounds'], 'improvement_rounds', 2, 0, MAX_ROUNDS);
    if (typeof rounds === 'string') return failureResult(rounds, trace.entries);
    const model = reportedModel(context, params);
    const generatorModel = typeof params['generator_model'] === 'string' ? params['generator_model'] : model;
    const criticModel = typeof params['critic_model'] === 'string' ? params['critic_model'] : model;
    trace.add('self_correct_start', {
      task,
      improvement_rounds: rounds,
      generator_model: generatorModel,
      critic_model: criticModel,
    });

    const generated = await callModel(
      context,
      llmOptions(params, params['generator_model']),
      [
        { role: 'system', content: renderGeneratePrompt({}) },
        { role: 'user', content: `Task: ${task}` },
      ],
      { label: 'reason.self_correct', purpose: 'generator' },
    );
    if (!generated.ok) {
      trace.add('error', { error: generated.error });
      return failureResult(generated.error, trace.entries);
    }
    const parsed = parseModelOutput(generated.response.content);
    const initial = parsed.ok && isPlainObject(parsed.value) && 'output' in parsed.value ? parsed.value : undefined;
    let current: unknown = initial !== undefined ? initial['output'] : generated.response.content;
    const history: Array<Record<string, unknown>> = [
      {
        round: 0,
        type: 'initial',
        output: current,
        confidence: typeof initial?.['confidence'] === 'number' ? initial['confidence'] : 0.5,
        potential_issues: Array.isArray(initial?.['potential_issues']) ? initial['potential_issues'] : [],
        timestamp: nowSeconds(),
      },
    ];
    trace.add('initial_generation', {
      output: truncateText(textOf(current), 500),
      confidence: history[0]!['confidence'],
      parsed: initial !== undefined,
    });

    let completed = 0;
    const skipped: Array<{ round: number; error: string }> = [];
    for (let round = 1; round <= rounds; round++) {
      const critique = await callModel(
        context,
        llmOptions(params, params['critic_model']),
        [
          {
            role: 'system',
            content: renderCriticPrompt({ criticPrompt: criticPromptText(renderCritic(current, round, task)) }),
          },
          { role: 'user', content: `Task: ${task}\n\nCurrent output:\n${textOf(current)}` },
        ],
        { label: 'reason.self_correct', purpose: `critic and corrector (round ${round})` },
      );
      if (!critique.ok) {
        trace.add(`critique_round_${round}_error`, { error: critique.error });
        skipped.push({ round, error: critique.error });
        continue;
      }
      const review = parseModelOutput(critique.response.content);
      if (!review.ok || !isPlainObject(review.value)) {
        const error = review.ok ? 'the critique is not a JSON object' : review.error;
        trace.add(`critique_round_${round}_parse_error`, {
          error,
          raw_content: cutText(critique.response.content, 200),
        });
        skipped.push({ round, error });
        continue;
      }
      const improved =
        'improved_output' in review.value && review.value['improved_output'] !== null
          ? review.value['improved_output']
          : current;
      const score = typeof review.value['improvement_score'] === 'number' ? review.value['improvement_score'] : 0.5;
      const issues = Array.isArray(review.value['issues']) ? review.value['issues'] : [];
      history.push({
        round,
        type: 'improvement',
        issues_found: issues,
        suggestions: Array.isArray(review.value['suggestions']) ? review.value['suggestions'] : [],
        output: improved,
        improvement_score: score,
        timestamp: nowSeconds(),
      });
      trace.add(`improvement_round_${round}`, { issues_count: issues.length, improvement_score: score });
      current = improved;
      completed++;
    }
    trace.add('self_correct_complete', { rounds_completed: completed, rounds_skipped: skipped.length });
    return {
      output: current,
      improvement_history: history,
      reasoning_trace: trace.entries,
      reasoning_answer: current,
      rounds_completed: completed,
      rounds_requested: rounds,
      skipped_rounds: skipped,
      model: reportedModel(context, params, generated.response),
      generator_model: generatorModel,
      critic_model: criticModel,
    };
  } catch (error) {
    rethrowControl(error);
    trace.add('error', { error: messageOf(error) });
    return failureResult(`Self-correction failed: ${messageOf(error)}`, trace.entries);
  }
}

function criticPromptText(rendered: unknown): string {
  return typeof rendered === 'string' && rendered.trim() !== ''
    ? rendered
    : rendered === undefined || rendered === null || rendered === ''
      ? DEFAULT_CRITIC_PROMPT
      : textOf(rendered);
}
