import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../core/events.js';
import { categorizeError } from './error-category.js';
import { tasksFromEvents } from './task-executions.js';

let seq = 0;
function event(
  type: AgentEvent['type'],
  node: string | undefined,
  data: Record<string, unknown> = {},
  ms = seq * 10,
): AgentEvent {
  seq += 1;
  return {
    type,
    run_id: 'r',
    seq,
    ts: new Date(Date.UTC(2026, 0, 1) + ms).toISOString(),
    ...(node !== undefined ? { node } : {}),
    data,
  } as AgentEvent;
}

describe('tasksFromEvents', () => {
  it('reads visits, retries, graceful errors, failures and incomplete nodes', () => {
    seq = 0;
    const events = [
      event('run_start', undefined, { agent: 'a' }),
      event('node_start', 'a'),
      event('node_end', 'a', { update: { x: 1 }, duration_ms: 5 }),
      event('node_start', 'flaky'),
      event('error', 'flaky', { code: 'LLM_TIMEOUT', message: 'timed out', attempt: 1 }),
      event('node_start', 'flaky', { attempt: 2 }),
      event('node_end', 'flaky', { update: { y: 2 }, duration_ms: 7 }),
      event('node_start', 'soft'),
      event('error', 'soft', { code: 'ACTION_FAILED', message: 'not found' }),
      event('node_end', 'soft', {
        update: { __error__: { code: 'ACTION_FAILED', message: 'not found', node: 'soft' } },
        duration_ms: 1,
      }),
      event('node_start', 'a'),
      event('node_end', 'a', { update: {}, duration_ms: 3 }),
      event('node_start', 'hard'),
      event('error', 'hard', { code: 'LUA_ERROR', message: 'boom' }),
      event('error', 'hard', { code: 'LUA_ERROR', message: 'boom', fatal: true }),
      event('node_start', 'cut'),
      event('done', undefined, { status: 'cancelled' }),
    ];
    const tasks = tasksFromEvents(events);
    expect(tasks.map((task) => [task.task_id, task.status, task.attempts])).toEqual([
      ['a#1', 'succeeded', 1],
      ['flaky#1', 'succeeded', 2],
      ['soft#1', 'failed', 1],
      ['a#2', 'succeeded', 1],
      ['hard#1', 'failed', 1],
      ['cut#1', 'incomplete', 1],
    ]);
    expect(tasks[0]).toMatchObject({ duration_ms: 5, output: { x: 1 } });
    expect(tasks[1]!.error).toBeUndefined();
    expect(tasks[2]!.error).toEqual({ code: 'ACTION_FAILED', message: 'not found' });
    expect(tasks[4]!.error).toEqual({ code: 'LUA_ERROR', message: 'boom' });
  });

  it('pairs interleaved parallel branches by node', () => {
    seq = 0;
    const events = [
      event('node_start', 'left'),
      event('node_start', 'right'),
      event('node_end', 'right', { update: {}, duration_ms: 2 }),
      event('node_end', 'left', { update: {}, duration_ms: 9 }),
    ];
    expect(tasksFromEvents(events).map((task) => [task.node, task.duration_ms])).toEqual([
      ['left', 9],
      ['right', 2],
    ]);
  });
});

describe('categorizeError (seed 002)', () => {
  it.each([
    ['Request timeout', undefined, 'timeout', true],
    ['permission denied', undefined, 'permission', false],
    ['Access denied for user', undefined, 'permission', false],
    ['File not found', undefined, 'not_found', true],
    ['no such file or directory', undefined, 'not_found', true],
    ['connection refused', undefined, 'network', true],
    ['network unreachable', undefined, 'network', true],
    ['validation failed', undefined, 'validation', false],
    ['invalid input', undefined, 'validation', false],
    ['out of memory', undefined, 'resource', true],
    ['disk full', undefined, 'resource', true],
    ['something odd', undefined, 'execution', false],
    ['model said no', 'LLM_TIMEOUT', 'timeout', true],
    ['nothing here', 'NOT_FOUND', 'not_found', true],
  ])('%s (%s) → %s, replan %s', (message, code, category, replan) => {
    expect(categorizeError(message, code)).toMatchObject({ category, should_replan: replan });
  });
});
