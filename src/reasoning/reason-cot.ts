/**
 * `reason.cot` (docs/spec.md#62-reasoncot): one model call with chain-of-thought prompting, answering
 * `{thinking, answer}`. The prompt is `src/prompts/cot.eta` (compiled at build time).
 */
import type { ActionDefinition, ActionContext } from '../core/action.js';
import renderCotPrompt from '../prompts/cot.eta';
import {
  callModel,
  compileParams,
  failureResult,
  LLM_KEYS,
  llmOptions,
  renderParams,
  reportedModel,
  rethrowControl,
  staticParam,
  type CompiledParams,
} from './action-support.js';
import { messageOf } from '../util/message-of.js';
import { llmProperties } from '../spec/parameter-shapes.js';
import { parseModelOutput } from './parse-output.js';
import { createReasoningTrace } from './reasoning-trace.js';
import { textOf } from '../util/text-of.js';
import { isPlainObject } from '../util/plain-object.js';
import { DEFAULT_THINKING_FORMAT, THINKING_FORMATS, thinkingFormatInstructions } from './thinking-formats.js';

const FEW_SHOT_EXAMPLE = {
  type: 'object',
  properties: { problem: { type: 'string' }, thinking: { type: 'string' }, answer: {} },
  additionalProperties: false,
};

/** A few-shot example as written in the agent. */
interface FewShotExample {
  problem?: unknown;
  thinking?: unknown;
  answer?: unknown;
}

/**
 * The `reason.cot` action.
 *
 * @example
 * // - name: solve
 * //   uses: reason.cot
 * //   with: {problem: "{{ state.question }}", thinking_format: step_by_step}
 */
export function reasonCot(): ActionDefinition<CompiledParams> {
  return {
    name: 'reason.cot',
    description:
      'Chain-of-thought reasoning: think through a problem, then answer. Returns {thinking, answer, reasoning_trace}.',
    parameters: {
      type: 'object',
      properties: {
        problem: { type: 'string' },
        thinking_format: { enum: [...THINKING_FORMATS.keys()] },
        few_shot_examples: { type: 'array', items: FEW_SHOT_EXAMPLE },
        few_shot: { type: 'array', items: FEW_SHOT_EXAMPLE, description: 'alias of few_shot_examples' },
        stream: { type: 'boolean' },
        ...llmProperties(LLM_KEYS),
      },
      required: ['problem'],
      additionalProperties: false,
    },
    prepare(raw, compiler) {
      const compiled = compileParams(raw, compiler, ['problem']);
      const format = staticParam(compiled, 'thinking_format');
      if (format.known && format.value !== undefined && !THINKING_FORMATS.has(String(format.value))) {
        throw compiler.error(
          `Unknown thinking_format '${String(format.value)}'; use one of: ${[...THINKING_FORMATS.keys()].join(', ')}`,
          'thinking_format',
        );
      }
      for (const key of ['few_shot_examples', 'few_shot']) {
        const examples = staticParam(compiled, key);
        if (examples.known && examples.value !== undefined && !Array.isArray(examples.value))
          throw compiler.error(`${key} must be a list of {problem, thinking, answer}`, key);
      }
      return compiled;
    },
    run: (compiled, context) => runCot(renderParams(compiled, context), context),
  };
}

async function runCot(params: Record<string, unknown>, context: ActionContext): Promise<Record<string, unknown>> {
  const trace = createReasoningTrace();
  try {
    const problem = textOf(params['problem'] ?? '');
    const format =
      params['thinking_format'] === undefined || params['thinking_format'] === null
        ? DEFAULT_THINKING_FORMAT
        : String(params['thinking_format']);
    const instructions = thinkingFormatInstructions(format);
    if (instructions === undefined) return failureResult(`Unknown thinking_format '${format}'`, trace.entries);
    const rawExamples = params['few_shot_examples'] ?? params['few_shot'] ?? [];
    const examples = Array.isArray(rawExamples) ? rawExamples.filter(isPlainObject).map(formatExample) : [];
    const system = renderCotPrompt({ formatInstructions: instructions, examples });
    const model = reportedModel(context, params);
    trace.add('cot_request', { problem, thinking_format: format, model });

    const outcome = await callModel(
      context,
      llmOptions(params),
      [
        { role: 'system', content: system },
        { role: 'user', content: `Problem: ${problem}` },
      ],
      { label: 'reason.cot', purpose: 'chain of thought' },
      params['stream'] === true,
    );
    if (!outcome.ok) {
      trace.add('error', { error: outcome.error });
      return failureResult(outcome.error, trace.entries);
    }
    const parsed = parseModelOutput(outcome.response.content);
    if (!parsed.ok) {
      trace.add('error', { error: parsed.error });
      return failureResult(`Chain-of-thought reasoning failed: ${parsed.error}`, trace.entries);
    }
    const { thinking, answer } = thinkingAndAnswer(parsed.value, parsed.thinking ?? outcome.response.reasoning);
    trace.add('cot_response', { thinking, answer, parse_method: parsed.method, usage: outcome.response.usage });
    return {
      thinking,
      answer,
      reasoning_trace: trace.entries,
      model: reportedModel(context, params, outcome.response),
      thinking_format: format,
      reasoning_thinking: thinking,
      reasoning_answer: answer,
    };
  } catch (error) {
    rethrowControl(error);
    trace.add('error', { error: messageOf(error) });
    return failureResult(`Chain-of-thought reasoning failed: ${messageOf(error)}`, trace.entries);
  }
}

/** `{thinking, answer}` from any parsed shape: an object with those keys, or a bare answer. */
function thinkingAndAnswer(value: unknown, taggedThinking: string | undefined): { thinking: string; answer: unknown } {
  if (isPlainObject(value) && ('answer' in value || 'thinking' in value)) {
    const thinking =
      value['thinking'] === undefined || value['thinking'] === null
        ? (taggedThinking ?? '')
        : textOf(value['thinking']);
    return { thinking, answer: value['answer'] ?? '' };
  }
  return { thinking: taggedThinking ?? '', answer: value };
}

function formatExample(example: FewShotExample): Record<string, string | undefined> {
  return {
    problem: example.problem === undefined ? undefined : textOf(example.problem),
    thinking: example.thinking === undefined ? undefined : textOf(example.thinking),
    answer: example.answer === undefined ? undefined : textOf(example.answer),
  };
}
