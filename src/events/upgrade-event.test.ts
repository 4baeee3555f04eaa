import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../core/events.js';
import { upgradeEvent } from './upgrade-event.js';

/** An event as an older version stored it (old field names, so not of today's type). */
function stored(type: AgentEvent['type'], data: Record<string, unknown>): AgentEvent {
  return { type, run_id: 'r', seq: 1, ts: '2026-01-01T00:00:00.000Z', node: 'n', data } as AgentEvent;
}

describe('upgradeEvent', () => {
  it("reads an llm.call tool_result under today's names: result → observation, success → status", () => {
    expect(
      upgradeEvent(stored('tool_result', { tool: 'add', call_id: 'c1', success: true, result: '{"sum":5}', round: 1 }))
        .data,
    ).toEqual({
      tool: 'add',
      call_id: 'c1',
      status: 'ok',
      observation: '{"sum":5}',
      round: 1,
    });
    expect(
      upgradeEvent(
        stored('tool_result', { tool: 'x', call_id: 'c2', success: false, result: { error: 'no' }, round: 2 }),
      ).data,
    ).toMatchObject({
      status: 'error',
      observation: '{"error":"no"}',
    });
  });

  it('gives old log lines their source, and a retry its error object', () => {
    const retry = upgradeEvent(
      stored('log', {
        message: 'retrying model call (attempt 2) after LLM_HTTP_503',
        attempt: 2,
        delay_ms: 400,
        code: 'LLM_HTTP_503',
        label: 'ask',
      }),
    );
    expect(retry.data).toEqual({
      source: 'model',
      message: 'retrying model call (attempt 2) after LLM_HTTP_503',
      attempt: 2,
      delay_ms: 400,
      error: { code: 'LLM_HTTP_503', message: 'retrying model call (attempt 2) after LLM_HTTP_503' },
      label: 'ask',
    });
    expect(
      upgradeEvent(
        stored('log', {
          level: 'warn',
          message: 'trace truncated',
          truncated: true,
          dropped_from_seq: 9,
          max_events: 8,
          max_bytes: 1,
        }),
      ).data,
    ).toMatchObject({ source: 'trace' });
  });

  it("returns an event already under today's names as it is (no copy)", () => {
    const current = stored('tool_result', { tool: 'add', call_id: 'c1', status: 'ok', observation: '5', step: 1 });
    expect(upgradeEvent(current)).toBe(current);
    const lua = stored('log', { source: 'lua', message: 'hi' });
    expect(upgradeEvent(lua)).toBe(lua);
  });
});
