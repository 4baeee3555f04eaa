/** The run record of an imported run, rebuilt from its events. */
import type { AgentEvent } from '../src/core/events.js';
import type { RunRecord } from '../src/core/trace-store.js';

type RunErrorCode = NonNullable<RunRecord['error']>['code'];

/** A run record rebuilt from a run's events (for imported runs). */
export function recordFromEvents(events: AgentEvent[]): RunRecord {
  const first = events[0]!;
  const last = events[events.length - 1]!;
  const done = [...events].reverse().find((event) => event.type === 'done');
  const agent = first.type === 'run_start' && typeof first.data.agent === 'string' ? first.data.agent : 'imported';
  const status = typeof done?.data.status === 'string' ? done.data.status : 'failed';
  const record: RunRecord = {
    run_id: first.run_id,
    agent,
    status: (['running', 'completed', 'failed', 'interrupted', 'cancelled'].includes(status)
      ? status
      : 'failed') as RunRecord['status'],
    created_at: first.ts,
    updated_at: last.ts,
    event_count: events.length,
  };
  if (typeof done?.data.stop_reason === 'string') record.stop_reason = done.data.stop_reason;
  // What it used, as the engine's own record says it (calls, tokens, models), from its events.
  const models = new Set<string>();
  const usage = { llm_calls: 0, tokens: 0 };
  for (const event of events) {
    if (event.type === 'llm_request') {
      usage.llm_calls++;
      if (typeof event.data.model === 'string') models.add(event.data.model);
    } else if (event.type === 'llm_response' && 'usage' in event.data) {
      const total = (event.data.usage as { total_tokens?: unknown } | undefined)?.total_tokens;
      if (typeof total === 'number' && Number.isFinite(total)) usage.tokens += total;
    }
  }
  record.usage = usage;
  if (models.size > 0) record.models = [...models];
  const error: { code?: unknown; message?: unknown; node?: unknown } | undefined = done?.data.error;
  if (typeof error?.code === 'string' && typeof error.message === 'string') {
    record.error = {
      code: error.code as RunErrorCode,
      message: error.message,
      ...(typeof error.node === 'string' ? { node: error.node } : {}),
    };
  }
  return record;
}
