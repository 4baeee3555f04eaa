/** The figures of a run, for the report and the comparison: time, tokens, model calls, models. */
import type { AgentEvent } from '../src/core/events.js';
import { buildTimeline } from './timeline.js';

export interface RunFigures {
  duration_ms: number;
  tokens: number;
  model_calls: number;
  failed_calls: number;
  models: string[];
  nodes: number;
}

export function runFigures(events: readonly AgentEvent[]): RunFigures {
  const timeline = buildTimeline(events);
  const calls = timeline.items.filter((item) => item.kind === 'model');
  const models = new Set<string>();
  for (const event of events)
    if (event.type === 'llm_request' && typeof event.data.model === 'string') models.add(event.data.model);
  return {
    duration_ms: timeline.total,
    tokens: timeline.tokens,
    model_calls: calls.length,
    failed_calls: calls.filter((call) => call.status === 'failed').length,
    models: [...models],
    nodes: timeline.items.filter((item) => item.kind === 'node' || item.kind === 'lua').length,
  };
}
