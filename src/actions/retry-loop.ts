/**
 * `retry.loop` (TEA-YAML-005): validate, and while the validation fails and retries remain, run a
 * correction node of the same agent and validate again.
 *
 *   uses: retry.loop
 *   with: {validate: validate.schema, validate_args: {data: "{{ state.person }}", schema: {...}}, correct: fix_person, max_retries: 2}
 *
 * As in TEA's Python: the validation action gets the loop's working state; a result without
 * `valid: true` is a failure and its `errors` become `_retry_errors`; the correction node runs on
 * the working state (with `_retry_count` and `_retry_errors` set) and its update is merged into it;
 * the result is the working state plus `_retry_count`, `_retry_errors`, `_retry_result`,
 * `_retry_exhausted` and the last validation result's keys. A validation action that throws counts
 * as `{valid: false, errors: [{message, type: validation_error}]}`; a correction node that throws
 * ends the loop with a `correction_error` and `_retry_exhausted: false`.
 *
 * One deliberate difference: TEA renders `validate_args` once, before the loop, so every retry
 * validated the same, uncorrected data. Here they are rendered again for each attempt against the
 * working state, so `{{ state.x }}` sees what the correction node wrote.
 *
 * Infrastructure failures (model server down, budget, cancellation, storage) are never turned
 * into validation errors: they end the node with their own code.
 */
import { AgentError } from '../core/agent-error.js';
import { isInfrastructureFailure } from '../llm/llm-errors.js';
import { sleep } from '../llm/retry.js';
import type { CompiledValue } from '../templates/types.js';
import type { ActionContext, ActionDefinition, State } from '../core/action.js';
import { cutText } from '../util/cut-text.js';

const MAX_RETRIES_CAP = 100;
const MAX_DELAY_SECONDS = 60;

interface Prepared {
  validate: string;
  validateArgs: CompiledValue;
  correct: string;
  maxRetries: CompiledValue;
  retryDelay: CompiledValue;
}

export const retryLoop: ActionDefinition<Prepared> = {
  name: 'retry.loop',
  description:
    'Validates with an action; on failure runs a correction node and validates again, at most max_retries times. Sets _retry_count, _retry_errors, _retry_result, _retry_exhausted.',
  parameters: {
    type: 'object',
    required: ['validate', 'correct'],
    properties: {
      validate: {
        type: 'string',
        description: 'the validation action (its result needs `valid`, optionally `errors`)',
      },
      validate_args: {
        type: 'object',
        description: 'its parameters, rendered for each attempt against the working state',
      },
      correct: { type: 'string', description: 'the node of this agent that corrects the state' },
      max_retries: { type: 'integer', minimum: 0, maximum: MAX_RETRIES_CAP, default: 1 },
      retry_delay: {
        type: 'number',
        minimum: 0,
        maximum: MAX_DELAY_SECONDS,
        default: 0,
        description: 'seconds between attempts',
      },
    },
    additionalProperties: false,
  },
  prepare(params, compiler) {
    for (const key of Object.keys(params)) {
      if (!['validate', 'validate_args', 'correct', 'max_retries', 'retry_delay'].includes(key)) {
        throw compiler.error(
          `retry.loop has no parameter '${key}' (validate, validate_args, correct, max_retries, retry_delay)`,
          key,
        );
      }
    }
    if (typeof params.validate !== 'string' || params.validate === '')
      throw compiler.error('retry.loop: `validate` must name a validation action', 'validate');
    if (params.validate === 'retry.loop') throw compiler.error('retry.loop cannot validate with itself', 'validate');
    compiler.action(params.validate, 'validate');
    if (typeof params.correct !== 'string' || params.correct === '')
      throw compiler.error('retry.loop: `correct` is required: the name of the correction node', 'correct');
    const validateArgs = params.validate_args ?? {};
    if (typeof validateArgs !== 'object' || validateArgs === null || Array.isArray(validateArgs))
      throw compiler.error('retry.loop: `validate_args` must be a mapping', 'validate_args');
    return {
      validate: params.validate,
      validateArgs: compiler.template(validateArgs, 'validate_args'),
      correct: params.correct,
      maxRetries: compiler.template(params.max_retries ?? 1, 'max_retries'),
      retryDelay: compiler.template(params.retry_delay ?? 0, 'retry_delay'),
    };
  },
  async run(prepared, context) {
    const maxRetries = prepared.maxRetries.render(context.scope());
    if (
      typeof maxRetries !== 'number' ||
      !Number.isInteger(maxRetries) ||
      maxRetries < 0 ||
      maxRetries > MAX_RETRIES_CAP
    ) {
      throw new AgentError(
        'INVALID_PARAMS',
        `retry.loop: max_retries must be an integer from 0 to ${MAX_RETRIES_CAP}, got ${JSON.stringify(maxRetries)}`,
        { field: 'max_retries' },
      );
    }
    const delay = prepared.retryDelay.render(context.scope());
    if (typeof delay !== 'number' || !Number.isFinite(delay) || delay < 0 || delay > MAX_DELAY_SECONDS) {
      throw new AgentError(
        'INVALID_PARAMS',
        `retry.loop: retry_delay must be a number of seconds from 0 to ${MAX_DELAY_SECONDS}`,
        { field: 'retry_delay' },
      );
    }
    return loop(prepared, context, maxRetries, delay, context.runNode.bind(context));
  },
};

async function loop(
  prepared: Prepared,
  context: ActionContext,
  maxRetries: number,
  delaySeconds: number,
  runNode: ActionContext['runNode'],
): Promise<Record<string, unknown>> {
  const working: State = { ...context.state };
  for (let retry = 0; ; retry++) {
    working['_retry_count'] = retry;
    const result = await validateOnce(prepared, context, working);
    const errors = Array.isArray(result['errors']) ? result['errors'] : [];
    if (result['valid'] === true) return finish(working, retry, [], result, false);
    working['_retry_errors'] = errors;
    if (retry >= maxRetries) return finish(working, retry, errors, result, true);
    context.emit('log', {
      source: 'retry_loop',
      message: `retry.loop: validation failed, running correction node '${prepared.correct}' (retry ${retry + 1} of ${maxRetries})`,
      retry: retry + 1,
      errors: errors.length,
    });
    try {
      Object.assign(working, await runNode(prepared.correct, { ...working }));
    } catch (error) {
      if (isInfrastructureFailure(error) || !AgentError.isInstance(error) || error.code === 'INVALID_PARAMS')
        throw error;
      const message = `Correction node '${prepared.correct}' failed: ${error.message}`;
      return {
        ...working,
        _retry_count: retry,
        _retry_errors: [...errors, { message, type: 'correction_error' }],
        _retry_result: { valid: false, errors, correction_error: error.message },
        _retry_exhausted: false,
        valid: false,
      };
    }
    if (delaySeconds > 0) await sleep(delaySeconds * 1000, context.signal);
  }
}

/** One validation: the action's result as a record; a thrown content failure becomes `valid: false`. */
async function validateOnce(
  prepared: Prepared,
  context: ActionContext,
  working: State,
): Promise<Record<string, unknown>> {
  try {
    const args = prepared.validateArgs.render(context.scope({ state: working }));
    const result = await context.callAction(prepared.validate, args as Record<string, unknown>, { state: working });
    if (typeof result !== 'object' || result === null || Array.isArray(result)) {
      return {
        valid: false,
        errors: [
          {
            message: `${prepared.validate} returned ${cutText(JSON.stringify(result) ?? 'undefined', 100)}, not {valid, errors}`,
            type: 'validation_error',
          },
        ],
      };
    }
    return result as Record<string, unknown>;
  } catch (error) {
    // The machinery, an authoring mistake in the args, or a pause is not a failed validation.
    if (isInfrastructureFailure(error) || !AgentError.isInstance(error) || error.code === 'TEMPLATE_ERROR') throw error;
    return { valid: false, errors: [{ message: error.message, type: 'validation_error' }] };
  }
}

function finish(
  working: State,
  retry: number,
  errors: unknown[],
  result: Record<string, unknown>,
  exhausted: boolean,
): Record<string, unknown> {
  return {
    ...working,
    _retry_count: retry,
    _retry_errors: errors,
    _retry_result: result,
    _retry_exhausted: exhausted,
    ...result,
  };
}
