/**
 * The `reflection.evaluate` action (docs/spec.md#53-standalone-actions): one evaluation without a loop.
 * `{data, evaluator: {...}}`, or TEA's flat form (`evaluator_type` or `type`, `schema`, `prompt`,
 * `model`, `examples`, `run`, `language`). `data` defaults to `state.reflection_output`, then
 * `state.output`. An LLM result (`{content, usage}`) or JSON text is read like a loop candidate.
 * Returns the verdict plus `success: true`. Parameter errors fail at load (INVALID_PARAMS).
 */
import type { ActionDefinition } from '../core/action.js';
import type { CompiledValue } from '../templates/types.js';
import { evaluate } from './evaluators/evaluate.js';
import { JUDGE_LLM_KEYS, prepareEvaluator } from './evaluators/prepare-evaluator.js';
import { evaluatorShape, llmProperties } from '../spec/parameter-shapes.js';
import { extractCandidate } from './extract-candidate.js';
import type { PreparedEvaluator } from './reflection-types.js';

interface EvaluateParams {
  data: CompiledValue | undefined;
  evaluator: PreparedEvaluator;
}

const FLAT_KEYS = [
  'schema',
  'prompt',
  'model',
  'examples',
  'run',
  'code',
  'language',
  'threshold',
  'coerce',
  'temperature',
  'max_tokens',
  'api_base',
  'provider',
];

export const reflectionEvaluateAction: ActionDefinition<EvaluateParams> = {
  name: 'reflection.evaluate',
  description:
    'Evaluates data with a schema, LLM-judge or Lua evaluator; returns {valid, score, errors, suggestions, feedback?, success}.',
  parameters: {
    type: 'object',
    properties: {
      data: { description: 'what to evaluate (default: state.reflection_output, then state.output)' },
      evaluator: evaluatorShape(JUDGE_LLM_KEYS),
      evaluator_type: {
        enum: ['schema', 'llm', 'lua', 'custom'],
        description: "TEA's flat form: the evaluator's keys sit beside it",
      },
      type: { enum: ['schema', 'llm', 'lua', 'custom'], description: 'alias of evaluator_type' },
      schema: { type: ['object', 'string'] },
      prompt: { type: 'string' },
      examples: { type: 'array', items: { type: 'object' } },
      run: { type: 'string' },
      code: { type: 'string' },
      language: { enum: ['lua', 'prolog'] },
      threshold: { type: 'number' },
      coerce: { type: 'boolean' },
      ...llmProperties(['model', 'temperature', 'max_tokens', 'api_base', 'provider']),
    },
    additionalProperties: false,
  },
  prepare(params, compiler) {
    let spec = params.evaluator;
    let field = 'evaluator';
    if (spec === undefined) {
      const flat: Record<string, unknown> = { type: params.evaluator_type ?? params.type ?? 'schema' };
      for (const key of FLAT_KEYS) if (params[key] !== undefined) flat[key] = params[key];
      spec = flat;
      field = '';
    }
    return {
      data: params.data === undefined ? undefined : compiler.template(params.data, 'data'),
      evaluator: prepareEvaluator(spec, field, compiler),
    };
  },
  async run(params, context) {
    const state = context.state;
    const raw =
      params.data !== undefined
        ? params.data.render(context.scope())
        : (state.reflection_output ?? state.output ?? null);
    const iteration = typeof state.reflection_iteration === 'number' ? state.reflection_iteration : 1;
    const looksLikeLlmResult =
      typeof raw === 'object' &&
      raw !== null &&
      typeof (raw as { content?: unknown }).content === 'string' &&
      'usage' in raw;
    const extracted = extractCandidate(raw, {
      fromLlm: looksLikeLlmResult,
      expectJson: params.evaluator.type === 'schema',
    });
    if (!extracted.ok) {
      return {
        valid: false,
        score: 0,
        errors: [{ message: `Could not parse JSON from the data: ${extracted.error}`, type: 'parse_error' }],
        suggestions: ['Return valid JSON'],
        success: true,
      };
    }
    const verdict = await evaluate(
      params.evaluator,
      extracted.value,
      context,
      { ...state, reflection_output: extracted.value },
      iteration,
    );
    return { ...verdict, suggestions: verdict.suggestions ?? [], success: true };
  },
};
