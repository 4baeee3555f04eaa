/**
 * Reads an event stored by an earlier version under today's field names (src/core/events.ts).
 * This is the one place that knows the old names, so readers never guess between aliases: a host
 * that shows stored traces (the web demo's history and NDJSON import) upgrades each event once,
 * when it loads them. Live events never need it.
 *
 * What changed when the events contract was settled:
 * - `tool_result` of an `llm.call` tool: `result` → `observation`, `success` → `status`;
 * - `log` of a model retry: `code` → `error: {code, message}`, and every `log` got a `source`
 *   (`lua` print, `model` retry, `trace` cap notice).
 *
 * @example
 * const events = (await traceStore.readEvents(runId)).map(upgradeEvent);
 */
import type { AgentEvent } from '../core/events.js';

/** The event itself when it already uses today's names (no copy), else an upgraded copy. */
export function upgradeEvent(event: AgentEvent): AgentEvent {
  const data: Record<string, unknown> = event.data;
  if (event.type === 'tool_result' && data.observation === undefined && 'result' in data) {
    const { result, success, ...rest } = data;
    const observation = typeof result === 'string' ? result : (JSON.stringify(result) ?? 'null');
    return {
      ...event,
      data: { ...rest, observation, status: rest.status ?? (success === false ? 'error' : 'ok') },
    } as AgentEvent;
  }
  if (event.type === 'log' && data.source === undefined) {
    if (typeof data.code === 'string') {
      const { code, ...rest } = data;
      return {
        ...event,
        data: { ...rest, source: 'model', error: { code, message: String(data.message ?? '') } },
      } as AgentEvent;
    }
    return { ...event, data: { ...data, source: data.dropped_from_seq !== undefined ? 'trace' : 'lua' } } as AgentEvent;
  }
  return event;
}
