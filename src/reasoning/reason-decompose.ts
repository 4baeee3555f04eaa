/**
 * `reason.decompose` (docs/spec.md#65-reasondecompose): split a problem into sub-problems, solve them concurrently
 * (at most `max_concurrency` at once) in dependency order — each gets `Sub-answer <id>: <answer>`
 * lines of its dependencies — then synthesise. A sub-problem that fails on content (its nested
 * plan does not parse) is recorded with `error` and the rest go on; an infrastructure failure
 * (model down, HTTP error, timeout…) ends the action; a dependency cycle is an error; a
 * sub-problem marked `decompose: true` is decomposed again while depth < `max_depth`.
 *
 * Fan-out is bounded per action run: at most MAX_SUB_PROBLEMS_PER_RUN sub-problems over all
 * levels (20 per level). Past the cap, a plan's extra sub-problems are dropped and a sub-problem
 * marked for decomposition is solved directly; both are recorded (`sub_problem_cap` in the result,
 * `sub_problem_cap_reached` in the trace). A run therefore makes at most 2 + 2 × the cap model
 * calls (a plan and a synthesis per level, one call per leaf).
 */
import type { ActionDefinition } from '../core/action.js';
import { checkIntegerAtLoad, compileParams, LLM_KEYS, renderParams, type CompiledParams } from './action-support.js';
import { llmProperties } from '../spec/parameter-shapes.js';

export { MAX_SUB_PROBLEMS_PER_RUN } from './sub-problems.js';

/** The `reason.decompose` action. */
export function reasonDecompose(): ActionDefinition<CompiledParams> {
  return {
    name: 'reason.decompose',
    description:
      'Break a problem into sub-problems, solve them (in dependency order, concurrently), and synthesise the answer.',
    parameters: {
      type: 'object',
      properties: {
        problem: { type: 'string' },
        max_depth: { type: 'integer', minimum: 0, maximum: 5 },
        synthesis_prompt: { type: 'string' },
        max_concurrency: { type: 'integer', minimum: 1, maximum: 16 },
        ...llmProperties(LLM_KEYS),
      },
      required: ['problem'],
      additionalProperties: false,
    },
    prepare(raw, compiler) {
      const params = compileParams(raw, compiler, ['problem']);
      checkIntegerAtLoad(params, compiler, 'max_depth', 0, 5);
      checkIntegerAtLoad(params, compiler, 'max_concurrency', 1, 16);
      return params;
    },
    // The run itself loads on first use (decompose-run.ts).
    run: async (compiled, context) =>
      (await import('./decompose-run.js')).runDecompose(renderParams(compiled, context), context),
  };
}
