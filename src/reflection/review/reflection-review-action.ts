/**
 * The `reflection.review` action: reviews the current run's events so far, or a stored run given
 * by `run_id`, with `reviewRun`. Criteria come from `settings.reflection` and the call;
 * `enable_llm_reflection: true` asks the agent's model (settings.llm, overridable with `model`)
 * for suggestions; `learn_from_episode: true` (alias `learn`) stores insights. Needs the run's
 * trace store (the host passes one to the run); without one it fails with STORAGE_ERROR.
 * Reviewing the current run sees the events already written to the store: when the context
 * offers `flushEvents()`, pending events are written first.
 */
import type { AgentEvent } from '../../core/events.js';
import type { ActionContext, ActionDefinition } from '../../core/action.js';
import { AgentError } from '../../core/agent-error.js';
import type { CompiledValue } from '../../templates/types.js';
import { readCriteria } from './review-criteria.js';

interface ReviewParams {
  values: CompiledValue;
}

export const reflectionReviewAction: ActionDefinition<ReviewParams> = {
  name: 'reflection.review',
  description:
    'Reviews a run from the trace store (default: this run so far): per-node and per-run evaluation, failure patterns, optional LLM suggestions and learned insights.',
  parameters: {
    type: 'object',
    properties: {
      run_id: { type: 'string' },
      criteria: {
        type: 'object',
        properties: {
          min_success_rate: { type: 'number', minimum: 0, maximum: 1 },
          max_execution_time_multiplier: { type: 'number', minimum: 0 },
          require_all_tasks_complete: { type: 'boolean' },
          check_output_quality: { type: 'boolean' },
        },
        additionalProperties: false,
      },
      min_success_rate: { type: 'number', minimum: 0, maximum: 1 },
      max_execution_time_multiplier: { type: 'number', minimum: 0 },
      require_all_tasks_complete: { type: 'boolean' },
      check_output_quality: { type: 'boolean' },
      enable_llm_reflection: { type: 'boolean' },
      learn_from_episode: { type: 'boolean' },
      learn: { type: 'boolean', description: 'alias of learn_from_episode' },
      model: { type: 'string' },
      history_runs: { type: 'integer', minimum: 0, maximum: 200 },
    },
    additionalProperties: false,
  },
  prepare(params, compiler) {
    const settings = compiler.agentSettings.reflection;
    try {
      readCriteria(settings, params.criteria, params);
    } catch (error) {
      if (AgentError.isInstance(error)) throw compiler.error(error.message, error.location.field);
      throw error;
    }
    return { values: compiler.template(params, 'with') };
  },
  async run(params, context) {
    const values = params.values.render(context.scope()) as Record<string, unknown>;
    const store = context.traceStore;
    if (store === undefined) {
      throw new AgentError(
        'STORAGE_ERROR',
        'reflection.review needs a trace store: run the agent with one (the CLI and the worker keep traces)',
        { node: context.node },
      );
    }
    const settings = context.settings.reflection ?? {};
    const runId = typeof values.run_id === 'string' && values.run_id !== '' ? values.run_id : context.runId;
    // The engine batches trace writes: write the pending ones first. The review node itself is
    // still running, so its open node_start is not a task of the run being reviewed.
    let events: AgentEvent[] | undefined;
    if (runId === context.runId) {
      await context.flushEvents();
      events = withoutOpenVisit(await store.readEvents(runId), context.node);
    }
    const enableLlm = (values.enable_llm_reflection ?? settings.enable_llm_reflection) === true;
    const historyRuns = typeof values.history_runs === 'number' ? values.history_runs : undefined;
    // The reviewer's code loads on the first review: its own chunk where bundles split (the web demo's first load).
    const { reviewRun } = await import('./review-run.js');
    return reviewRun({
      traceStore: store,
      runId,
      criteria: readCriteria(settings, values.criteria, values),
      ...(enableLlm ? { llm: (prompt: string) => askModel(context, prompt, values.model) } : {}),
      learn: (values.learn_from_episode ?? values.learn ?? settings.learn_from_episode) === true,
      ...(events !== undefined ? { events } : {}),
      ...(historyRuns !== undefined ? { historyLimit: historyRuns } : {}),
    });
  },
};

async function askModel(context: ActionContext, prompt: string, model: unknown): Promise<string> {
  const response = await context.callLlm(
    { prompt, ...(typeof model === 'string' ? { model } : {}) },
    { label: 'review' },
  );
  return response.content ?? '';
}

/** The events without the last node_start of `node` that has no node_end yet (the visit in progress). */
function withoutOpenVisit(events: AgentEvent[], node: string): AgentEvent[] {
  for (let index = events.length - 1; index >= 0; index--) {
    const event = events[index]!;
    if (event.node !== node) continue;
    if (event.type === 'node_end') return events;
    if (event.type === 'node_start') return [...events.slice(0, index), ...events.slice(index + 1)];
  }
  return events;
}
