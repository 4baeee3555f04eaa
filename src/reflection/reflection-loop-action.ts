/**
 * The `reflection.loop` action: parameters are checked and compiled at agent load (`prepare`),
 * so a bad `max_iterations`, `on_failure`, evaluator type, template, Lua chunk or schema fails
 * the agent before any run starts. See reflection-loop.ts for the algorithm.
 */
import type { ActionCompiler, ActionDefinition } from '../core/action.js';
import { JUDGE_LLM_KEYS, prepareEvaluator } from './evaluators/prepare-evaluator.js';
import { actionStep, evaluatorShape, REFLECTION_ITERATIONS_CEILING } from '../spec/parameter-shapes.js';
import { prepareStep } from './prepare-step.js';
import { reflectionLoop, type LoopParams } from './reflection-loop.js';
import type { OnFailure } from './reflection-types.js';
import { withSchemaResponseFormat } from './schema-response-format.js';

/** The largest `max_iterations` accepted: a loop is a bounded retry, not a run loop. */
export const MAX_ITERATIONS_LIMIT = REFLECTION_ITERATIONS_CEILING;
const ON_FAILURE: OnFailure[] = ['return_best', 'return_last', 'raise'];

export const reflectionLoopAction: ActionDefinition<LoopParams> = {
  name: 'reflection.loop',
  description:
    'Generate → evaluate → correct until the output is valid or max_iterations is reached. Returns the reflection_* variables, valid, success, exhausted, iterations, stop_reason and output.',
  parameters: {
    type: 'object',
    required: ['generator', 'evaluator'],
    properties: {
      generator: actionStep('{action|uses: <action>, ...params} or {run: <lua>}'),
      evaluator: evaluatorShape(JUDGE_LLM_KEYS),
      corrector: actionStep('like generator; optional returns: candidate|state'),
      max_iterations: { type: 'integer', minimum: 1, maximum: REFLECTION_ITERATIONS_CEILING, default: 3 },
      on_failure: { enum: ON_FAILURE, default: 'return_best' },
      continue: { type: 'boolean', description: 'continue from state.reflection_history of an earlier loop node' },
    },
    additionalProperties: false,
  },
  prepare(params, compiler) {
    if (params.generator === undefined)
      throw compiler.error('`generator` is required (an action call or `run:` Lua code)', 'generator');
    if (params.evaluator === undefined)
      throw compiler.error('`evaluator` is required (type: schema, llm or lua)', 'evaluator');
    const prepared: LoopParams = {
      maxIterations: readMaxIterations(params.max_iterations, compiler),
      onFailure: readOnFailure(params.on_failure, compiler),
      generator: prepareStep(
        withSchemaResponseFormat(params.generator, params.evaluator, 'generator', compiler),
        'generator',
        compiler,
      ),
      evaluator: prepareEvaluator(params.evaluator, 'evaluator', compiler),
      continueFromState: readBoolean(params.continue, 'continue', compiler),
    };
    if (params.corrector !== undefined && params.corrector !== null) {
      prepared.corrector = prepareStep(
        withSchemaResponseFormat(params.corrector, params.evaluator, 'corrector', compiler),
        'corrector',
        compiler,
      );
    }
    return prepared;
  },
  run(params, context) {
    return reflectionLoop(params, context);
  },
};

function readMaxIterations(value: unknown, compiler: ActionCompiler): number {
  if (value === undefined || value === null) return 3;
  const number = typeof value === 'string' && /^\s*-?\d+\s*$/.test(value) ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isInteger(number))
    throw compiler.error(`\`max_iterations\` must be a whole number, not ${JSON.stringify(value)}`, 'max_iterations');
  if (number < 1) throw compiler.error(`\`max_iterations\` must be at least 1, not ${number}`, 'max_iterations');
  if (number > MAX_ITERATIONS_LIMIT)
    throw compiler.error(`\`max_iterations\` must be at most ${MAX_ITERATIONS_LIMIT}, not ${number}`, 'max_iterations');
  return number;
}

function readOnFailure(value: unknown, compiler: ActionCompiler): OnFailure {
  if (value === undefined || value === null) return 'return_best';
  if (typeof value === 'string' && (ON_FAILURE as string[]).includes(value)) return value as OnFailure;
  throw compiler.error(
    `invalid \`on_failure\` strategy ${JSON.stringify(value)}: use ${ON_FAILURE.join(', ')}`,
    'on_failure',
  );
}

function readBoolean(value: unknown, field: string, compiler: ActionCompiler): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value === 'boolean') return value;
  throw compiler.error(`\`${field}\` must be true or false`, field);
}
