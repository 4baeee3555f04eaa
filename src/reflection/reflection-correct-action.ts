/**
 * The `reflection.correct` action (docs/spec.md#53-standalone-actions): one correction without a loop.
 * `{data, errors, corrector: {...}}`, or TEA's flat forms: `corrector_action` (+ its parameters),
 * `run` (Lua), or `prompt` (an `llm.call`). The corrector sees `state.reflection_output` = data
 * and `state.reflection_errors` = errors (defaults: the state's own). Returns
 * `{corrected_output, success: true}`; an LLM corrector's JSON text is parsed like a loop
 * candidate. No corrector: `{corrected_output: data, success: false, error: "No corrector
 * specified"}`. A failing corrector: `success: false` with the error text (run-level control flow
 * such as cancellation still propagates).
 */
import type { ActionDefinition } from '../core/action.js';
import type { CompiledValue } from '../templates/types.js';
import { describeFailure, isControlFlow } from './control-flow.js';
import { extractCandidate } from './extract-candidate.js';
import { JUDGE_LLM_KEYS } from './evaluators/prepare-evaluator.js';
import { ACTION_PARAMS_KEYWORD, actionStep, llmProperties } from '../spec/parameter-shapes.js';
import { prepareStep } from './prepare-step.js';
import type { PreparedStep } from './reflection-types.js';
import { runStep } from './run-step.js';
import { isPlainObject } from '../util/plain-object.js';

interface CorrectParams {
  data: CompiledValue | undefined;
  errors: CompiledValue | undefined;
  corrector: PreparedStep | undefined;
}

const OWN_KEYS = new Set(['data', 'errors', 'corrector', 'corrector_action', 'run', 'code', 'language', 'returns']);

export const reflectionCorrectAction: ActionDefinition<CorrectParams> = {
  name: 'reflection.correct',
  description:
    'Runs a corrector (action, Lua or LLM prompt) on data with its errors; returns {corrected_output, success}.',
  parameters: {
    type: 'object',
    properties: {
      data: { description: 'the output to correct (default: state.reflection_output)' },
      errors: { type: 'array', description: 'its errors (default: state.reflection_errors)' },
      corrector: actionStep('{action|uses: <action>, ...params} or {run: <lua>}'),
      corrector_action: { type: 'string', description: "TEA's flat form: the action's parameters sit beside it" },
      run: { type: 'string', description: 'Lua corrector' },
      code: { type: 'string', description: 'alias of run' },
      language: { enum: ['lua'] },
      prompt: { type: 'string', description: 'LLM corrector prompt' },
      system: { type: 'string' },
      ...llmProperties(JUDGE_LLM_KEYS),
    },
    additionalProperties: false,
    [ACTION_PARAMS_KEYWORD]: ['corrector_action'],
  },
  prepare(params, compiler) {
    let corrector: PreparedStep | undefined;
    if (params.corrector !== undefined) {
      corrector = prepareStep(params.corrector, 'corrector', compiler);
    } else if (
      params.corrector_action !== undefined ||
      params.run !== undefined ||
      params.code !== undefined ||
      params.prompt !== undefined
    ) {
      const flat: Record<string, unknown> = {};
      for (const key of Object.keys(params)) if (!OWN_KEYS.has(key)) flat[key] = params[key];
      if (params.run !== undefined || params.code !== undefined) {
        corrector = prepareStep(
          { run: params.run ?? params.code, ...(params.language !== undefined ? { language: params.language } : {}) },
          'corrector',
          compiler,
        );
      } else if (params.corrector_action !== undefined) {
        corrector = prepareStep({ action: params.corrector_action, ...flat }, 'corrector', compiler);
      } else {
        const llm: Record<string, unknown> = { action: 'llm.call', prompt: params.prompt };
        for (const key of [...JUDGE_LLM_KEYS, 'system']) if (params[key] !== undefined) llm[key] = params[key];
        corrector = prepareStep(llm, 'corrector', compiler);
      }
    }
    return {
      data: params.data === undefined ? undefined : compiler.template(params.data, 'data'),
      errors: params.errors === undefined ? undefined : compiler.template(params.errors, 'errors'),
      corrector,
    };
  },
  async run(params, context) {
    const scope = context.scope();
    const data =
      params.data !== undefined
        ? params.data.render(scope)
        : (context.state.reflection_output ?? context.state.output ?? null);
    const errors = params.errors !== undefined ? params.errors.render(scope) : (context.state.reflection_errors ?? []);
    if (params.corrector === undefined)
      return { corrected_output: data, success: false, error: 'No corrector specified' };
    const state = { ...context.state, reflection_output: data, reflection_errors: errors };
    const iteration = typeof context.state.reflection_iteration === 'number' ? context.state.reflection_iteration : 1;
    let raw: unknown;
    try {
      raw = await runStep(params.corrector, context, state, iteration, 'corrector');
    } catch (error) {
      if (isControlFlow(error, context.signal)) throw error;
      return { corrected_output: data, success: false, error: `Corrector failed: ${describeFailure(error)}` };
    }
    const corrector = params.corrector;
    if (corrector.kind === 'lua' && isPlainObject(raw) && Object.hasOwn(raw, 'reflection_output')) {
      raw = (raw as Record<string, unknown>).reflection_output;
    }
    const extracted = extractCandidate(raw, {
      fromLlm: corrector.kind === 'action' && corrector.llm,
      expectJson: false,
    });
    if (!extracted.ok)
      return {
        corrected_output: extracted.raw,
        success: false,
        error: `Could not parse JSON from the corrector output: ${extracted.error}`,
      };
    return { corrected_output: extracted.value, success: true };
  },
};
