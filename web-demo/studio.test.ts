// The studio's pure parts in Node: the line and state diffs, the timeline built from events, the
// action finder and the offline report's escaping.
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../src/core/events.js';
import { diffLines, diffState } from './diff.js';
import { buildTimeline, groupRounds } from './timeline.js';
import { diffWords, findActions } from './action-views.js';
import { runReport } from './report.js';
import teaEdgeConditions from '../examples/tea-edge-conditions.yaml?raw';

let seq = 0;
function event(type: string, data: Record<string, unknown>, node?: string, ms = seq * 10): AgentEvent {
  seq++;
  return {
    type,
    run_id: 'r',
    seq,
    ts: new Date(Date.UTC(2026, 0, 1) + ms).toISOString(),
    ...(node ? { node } : {}),
    data,
  } as AgentEvent;
}

describe('diffs', () => {
  it('keeps common lines and marks the added and removed ones in order', () => {
    expect(diffLines('a\nb\nc', 'a\nx\nc\nd')).toEqual([
      { kind: 'same', text: 'a' },
      { kind: 'removed', text: 'b' },
      { kind: 'added', text: 'x' },
      { kind: 'same', text: 'c' },
      { kind: 'added', text: 'd' },
    ]);
    expect(diffLines('same', 'same')).toEqual([{ kind: 'same', text: 'same' }]);
  });
  it('diffs words, and states key by key', () => {
    expect(
      diffWords('Tea is a drink.', 'Tea is a hot drink.')
        .filter((part) => part.kind !== 'same')
        .map((part) => part.text.trim())
        .filter(Boolean),
    ).toEqual(['hot']);
    expect(diffState({ a: 1, b: { x: 1 }, c: 3 }, { a: 1, b: { x: 2 }, d: 4 })).toEqual([
      { key: 'a', kind: 'same', before: 1, after: 1 },
      { key: 'b', kind: 'changed', before: { x: 1 }, after: { x: 2 } },
      { key: 'c', kind: 'removed', before: 3 },
      { key: 'd', kind: 'added', after: 4 },
    ]);
  });
});

describe('timeline', () => {
  it('pairs nodes, calls and tools, counts retries and tokens, and keeps the state before and after each node', () => {
    seq = 0;
    const events = [
      event('run_start', { agent: 'a', input: { topic: 'tea' } }),
      event('node_start', {}, 'ask'),
      event(
        'llm_request',
        { model: 'm', provider: 'p', message_count: 1, stream: false, request: { messages: [] } },
        'ask',
      ),
      event(
        'log',
        {
          source: 'model',
          message: 'retrying',
          attempt: 2,
          delay_ms: 10,
          error: { code: 'LLM_HTTP_503', message: 'x' },
        },
        'ask',
      ),
      event(
        'llm_response',
        {
          model: 'm',
          duration_ms: 5,
          attempts: 2,
          usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
          finish_reason: 'stop',
          response: { content: 'hi' },
        },
        'ask',
      ),
      event(
        'tool_start',
        { tool: 'math.calculate', arguments: { e: '1+1' }, call_id: 'c1', step: 1, tier: 1, autonomous: true },
        'ask',
      ),
      event('tool_result', { tool: 'math.calculate', call_id: 'c1', status: 'ok', observation: '2', step: 1 }, 'ask'),
      event('node_end', { update: { answer: 'hi' }, duration_ms: 40 }, 'ask'),
      event('node_start', {}, 'shape'),
      event('node_end', { update: { shaped: true }, duration_ms: 1 }, 'shape'),
      event('done', { status: 'completed', stop_reason: 'completed', state: {} }),
    ];
    const timeline = buildTimeline(events, new Map([['shape', 'lua']]));
    expect(timeline.items.map((item) => `${item.kind}:${item.label}:${item.status}`)).toEqual([
      'node:ask:ok',
      'model:m:ok',
      'tool:math.calculate:ok',
      'lua:shape:ok',
    ]);
    const [ask, call, tool, shape] = timeline.items;
    expect(call).toMatchObject({
      retries: 1,
      attempts: 2,
      tokens: { prompt: 3, completion: 4, total: 7 },
      request: { messages: [] },
      response: { content: 'hi' },
    });
    expect(tool?.detail).toEqual({ arguments: { e: '1+1' }, observation: '2' });
    expect(ask).toMatchObject({ before: { topic: 'tea' }, after: { topic: 'tea', answer: 'hi' } });
    expect(shape).toMatchObject({
      before: { topic: 'tea', answer: 'hi' },
      after: { topic: 'tea', answer: 'hi', shaped: true },
    });
    expect(timeline.tokens).toBe(7);
    expect(timeline.total).toBe(100);
  });
  it('marks what was still open when the run ended: failed when the run failed, cancelled, paused, never failed otherwise', () => {
    const open = (status: string) => {
      seq = 0;
      return buildTimeline([
        event('run_start', { agent: 'a', input: {} }),
        event('node_start', {}, 'n'),
        event('llm_request', { model: 'm' }, 'n'),
        event('done', { status, stop_reason: status, state: {} }),
      ]);
    };
    expect(open('failed').items.map((item) => item.status)).toEqual(['failed', 'failed']);
    expect(open('cancelled').items.map((item) => item.status)).toEqual(['cancelled', 'cancelled']);
    expect(open('interrupted').items.map((item) => item.status)).toEqual(['paused', 'paused']);
    expect(open('completed').items.map((item) => item.status)).toEqual(['stopped', 'stopped']);
  });
  it('a call the cancellation stopped is cancelled, not failed; a streaming call counts what arrived', () => {
    seq = 0;
    const timeline = buildTimeline([
      event('run_start', { agent: 'a', input: {} }),
      event('node_start', {}, 'n'),
      event('llm_request', { model: 'm', stream: true }, 'n'),
      event('answer_chunk', { content: 'Hello' }, 'n'),
      event('answer_chunk', { content: ' tea' }, 'n'),
    ]);
    expect(timeline.items[1]).toMatchObject({ status: 'running', streamed: { chunks: 2, chars: 9 } });
    seq = 0;
    const cancelled = buildTimeline([
      event('run_start', { agent: 'a', input: {} }),
      event('node_start', {}, 'n'),
      event('llm_request', { model: 'm' }, 'n'),
      event(
        'llm_response',
        { model: 'm', duration_ms: 5, attempts: 1, error: { code: 'CANCELLED', message: 'cancelled' } },
        'n',
      ),
      event('done', { status: 'cancelled', stop_reason: 'cancelled', state: {} }),
    ]);
    expect(cancelled.items.map((item) => item.status)).toEqual(['cancelled', 'cancelled']);
  });
  it('a run paused for an approval: the first segment ends at the pause, the wait is its own item with the answer, the resumed segment completes', () => {
    seq = 0;
    const events = [
      event('run_start', { agent: 'a', input: {} }),
      event('node_start', {}, 'work'),
      event('confirmation_request', { tool: 'memory.store', arguments: { key: 'total' }, call_id: 'c2' }, 'work'),
      event(
        'interrupt',
        {
          checkpoint_id: 'k',
          node: 'work',
          position: 'before',
          pending: {
            kind: 'tool_confirmation',
            node: 'work',
            tool: 'memory.store',
            arguments: { key: 'total' },
            call_id: 'c2',
          },
        },
        'work',
      ),
      event('done', { status: 'interrupted', stop_reason: 'confirmation', state: {} }),
      // The person answers 2 s later.
      event('node_start', {}, 'work', 2040),
      event(
        'log',
        {
          source: 'approval',
          message: 'memory.store approved',
          tool: 'memory.store',
          call_id: 'c2',
          approved: true,
          role: 'operator',
        },
        'work',
        2040,
      ),
      event(
        'tool_start',
        { tool: 'memory.store', arguments: { key: 'total' }, call_id: 'c2', step: 2, tier: 3, autonomous: false },
        'work',
        2050,
      ),
      event(
        'tool_result',
        { tool: 'memory.store', call_id: 'c2', status: 'ok', observation: '{}', step: 2 },
        'work',
        2060,
      ),
      event('node_end', { update: { done: true }, duration_ms: 30 }, 'work', 2070),
      event('done', { status: 'completed', stop_reason: 'completed', state: {} }, undefined, 2080),
    ];
    const items = buildTimeline(events).items;
    expect(items.map((item) => `${item.kind}:${item.status}:${item.start}-${item.end}`)).toEqual([
      'node:paused:10-40',
      'pause:ok:30-2040',
      'node:ok:2040-2070',
      'tool:ok:2050-2060',
    ]);
    expect(items[2]!.resumed).toBe(true);
    expect(items[1]!.pause).toMatchObject({
      reason: 'approval',
      tool: 'memory.store',
      answer: { approved: true, role: 'operator' },
    });
    expect(items[1]!.label).toBe('memory.store approved (role operator)');
  });
});

describe('model call purposes', () => {
  it("takes the engine purpose, and names a reflection step's unlabelled calls from the attempt that follows", () => {
    seq = 0;
    const items = buildTimeline([
      event('run_start', { agent: 'a', input: {} }),
      event('node_start', {}, 'write'),
      event('llm_request', { model: 'm', provider: 'p', message_count: 1, stream: false }, 'write'),
      event(
        'llm_response',
        {
          model: 'm',
          duration_ms: 1,
          attempts: 1,
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
          finish_reason: 'stop',
          reasoning_chars: 12,
        },
        'write',
      ),
      event(
        'llm_request',
        { model: 'm', provider: 'p', message_count: 2, stream: false, label: 'judge', purpose: 'judge (attempt 1)' },
        'write',
      ),
      event(
        'llm_response',
        {
          model: 'm',
          duration_ms: 1,
          attempts: 1,
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
          finish_reason: 'stop',
        },
        'write',
      ),
      event(
        'reflection_attempt',
        { iteration: 1, max_iterations: 3, score: 0.4, valid: false, error_count: 0, errors: [], source: 'generator' },
        'write',
      ),
      event('llm_request', { model: 'm', provider: 'p', message_count: 1, stream: false }, 'write'),
      event(
        'llm_response',
        {
          model: 'm',
          duration_ms: 1,
          attempts: 1,
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
          finish_reason: 'stop',
        },
        'write',
      ),
      event(
        'reflection_attempt',
        { iteration: 2, max_iterations: 3, score: 0.9, valid: true, error_count: 0, errors: [], source: 'corrector' },
        'write',
      ),
    ]).items.filter((item) => item.kind === 'model');
    expect(items.map((item) => item.label)).toEqual([
      'generator (attempt 1) · m',
      'judge (attempt 1) · m',
      'corrector (attempt 2) · m',
    ]);
    expect(items[0]!.reasoningChars).toBe(12);
  });
});

describe('timeline rounds', () => {
  it('starts a round where a node that already ran in it runs again; the resumed part of a node stays in its round', () => {
    seq = 0;
    const node = (name: string) => [
      event('node_start', {}, name),
      event('node_end', { update: {}, duration_ms: 1 }, name),
    ];
    const events = [
      event('run_start', { agent: 'a', input: {} }),
      ...node('plan'),
      ...node('act'),
      ...node('check'),
      ...node('act'),
      ...node('check'),
      ...node('act'),
      event('done', { status: 'completed', stop_reason: 'completed', state: {} }),
    ];
    const rounds = groupRounds(buildTimeline(events).items);
    expect(rounds.map((round) => round.items.map((item) => item.label).join(','))).toEqual([
      'plan,act,check',
      'act,check',
      'act',
    ]);
    expect(rounds.map((round) => round.nodes)).toEqual([3, 2, 1]);
    seq = 0;
    const paused = groupRounds(
      buildTimeline([
        event('run_start', { agent: 'a', input: {} }),
        event('node_start', {}, 'work'),
        event(
          'interrupt',
          {
            checkpoint_id: 'k',
            node: 'work',
            position: 'before',
            pending: { kind: 'interrupt', node: 'work', position: 'before' },
          },
          'work',
        ),
        event('done', { status: 'interrupted', stop_reason: 'interrupt_before', state: {} }),
        event('node_start', {}, 'work'),
        event('node_end', { update: {}, duration_ms: 1 }, 'work'),
      ]).items,
    );
    expect(paused).toHaveLength(1);
    expect(paused[0]!.nodes).toBe(1);
  });
});

describe('action views and report', () => {
  it('finds each action by the shape of its result', () => {
    seq = 0;
    const found = findActions([
      event(
        'node_end',
        {
          update: {
            card: { reflection_history: [] },
            cot: { thinking: 't', answer: 1 },
            w: { improvement_history: [] },
            d: { sub_problems: [] },
            plain: { x: 1 },
          },
          duration_ms: 1,
        },
        'n',
      ),
    ]);
    expect(
      [found.reflection, found.cot, found.selfCorrect, found.decompose].map((list) => list.map((at) => at.key)),
    ).toEqual([['card'], ['cot'], ['w'], ['d']]);
  });
  it('escapes everything the report shows', () => {
    seq = 0;
    const html = runReport(
      { run_id: 'r', agent: '<img src=x onerror=alert(1)>', status: 'completed', created_at: 'now', updated_at: 'now' },
      [
        event('run_start', { agent: 'a', input: {} }),
        event('done', {
          status: 'completed',
          stop_reason: 'completed',
          state: { text: '</pre><script>alert(1)</script>' },
        }),
      ],
    );
    // The report's own two script elements are the only ones (report.test.ts checks the data block).
    expect(html.match(/<script/g)).toHaveLength(2);
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('<img');
    expect(html).toContain('&#60;img');
  });
});

describe('server agent graph', () => {
  it('draws a compiled spec from the server like the agent file', async () => {
    const { parse } = await import('yaml');
    const { loadAgent } = await import('../src/load-agent-with-scripts.js');
    const { agentGraph } = await import('./agent-graph.js');
    const { fileShape } = await import('./server-mode.js');
    const source = teaEdgeConditions;
    const compiled = JSON.parse(JSON.stringify(loadAgent(source, { file: 'x.yaml' }).spec)) as unknown;
    const fromServer = agentGraph(fileShape(compiled));
    const fromFile = agentGraph(parse(source));
    expect(fromServer.nodes.map((node) => `${node.name}:${node.kind}`)).toEqual(
      fromFile.nodes.map((node) => `${node.name}:${node.kind}`),
    );
    expect(fromServer.edges.map((edge) => `${edge.from}>${edge.to}`).sort()).toEqual(
      fromFile.edges.map((edge) => `${edge.from}>${edge.to}`).sort(),
    );
  });
});
